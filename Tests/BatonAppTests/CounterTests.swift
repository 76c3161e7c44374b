import Testing
import TerminalUI
@testable import BatonApp

@Suite("Counter keys")
struct CounterTests {
    @Test("+, = and Up count up; -, Down count down; each change publishes")
    func upAndDown() {
        var model = Fixtures.counter(0)
        #expect(model.press(.character("+")) == [.publish])
        #expect(model.count == 1)
        #expect(model.press(.character("=")) == [.publish])
        #expect(model.press(.up) == [.publish])
        #expect(model.count == 3)
        #expect(model.press(.character("-")) == [.publish])
        #expect(model.press(.down) == [.publish])
        #expect(model.count == 1)
        #expect(model.press(.down, .down) == [.publish, .publish])
        #expect(model.count == -1)
    }

    @Test("r resets to 0; resetting 0 again publishes nothing")
    func reset() {
        var model = Fixtures.counter(17)
        #expect(model.press(.character("r")) == [.publish])
        #expect(model.count == 0)
        #expect(model.press(.character("r")) == [])
    }

    @Test("q and Ctrl-Q quit")
    func quit() {
        var model = Fixtures.counter(3)
        #expect(model.press(.character("q")) == [.quit])
        #expect(model.isQuitting)
        var other = Fixtures.counter(3)
        #expect(other.press(.control("q")) == [.quit])
        #expect(other.isQuitting)
    }

    @Test("Keys after quitting do nothing")
    func keysAfterQuit() {
        var model = Fixtures.counter(3)
        model.press(.character("q"))
        #expect(model.press(.character("+")) == [])
        #expect(model.count == 3)
    }

    @Test("The count saturates at the ends of Int instead of trapping")
    func saturates() {
        var high = Fixtures.counter(.max)
        #expect(high.press(.character("+")) == [])
        #expect(high.count == .max)
        var low = Fixtures.counter(.min)
        low.press(.character("-"))
        #expect(low.count == .min)
    }

    @Test("n and Ctrl-N open Nearby; other keys are ignored")
    func nearbyAndOthers() {
        var model = Fixtures.counter(2)
        model.press(.character("n"))
        #expect(model.overlay == .nearby(selectedID: nil))
        model.press(.escape)
        #expect(model.overlay == nil)
        model.press(.control("n"))
        #expect(model.overlay == .nearby(selectedID: nil))
        model.press(.escape)
        #expect(model.press(.character("x"), .left, .enter, .function(1)) == [])
        #expect(model.count == 2)
    }
}
