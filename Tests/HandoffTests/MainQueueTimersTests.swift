import Dispatch
import HandoffTesting
import Testing
@testable import Handoff

/// The main actor's timers on the system clock, kept by their own thread: each runs on the main
/// actor once its deadline has passed, in deadline order; one set again runs only its newest
/// body, at its newest deadline; one cancelled runs nothing. Real time, waited for with a deadline.
@MainActor
@Suite("The main queue's timers")
struct MainQueueTimersTests {
    final class Ran {
        var names: [String] = []
        var early: [String] = []
    }

    @Test("Timers set out of order run in deadline order, on the main actor, never early; set again, only the newest runs; cancelled, none")
    func order() async {
        let timers = MainQueueTimers.shared
        let ran = Ran()
        let start = ContinuousClock.now
        func set(_ key: UInt64, _ name: String, after milliseconds: Int64) {
            let deadline = start + .milliseconds(milliseconds)
            timers.set(key, at: deadline) {
                MainActor.preconditionIsolated()
                if ContinuousClock.now < deadline { ran.early.append(name) }
                ran.names.append(name)
            }
        }
        let (a, b, c, d, e) = (timers.makeKey(), timers.makeKey(), timers.makeKey(), timers.makeKey(), timers.makeKey())
        #expect(Set([a, b, c, d, e]).count == 5, "each key is new")
        set(a, "a", after: 60)
        set(b, "b", after: 20)
        set(c, "c, replaced", after: 10)
        set(c, "c", after: 40)
        set(d, "d, cancelled", after: 30)
        timers.cancel(d)
        set(e, "e", after: 1)
        #expect(await waitUntil(timeout: .seconds(10)) { ran.names.count >= 4 })
        #expect(ran.names == ["e", "b", "c", "a"])
        #expect(ran.early.isEmpty, "none ran before its deadline")
    }

    @Test("The system clock's onMainActor runs its body on the main actor once, after the deadline; a deadline passed runs at once")
    func systemClock() async {
        let clock = SystemClock()
        let ran = Ran()
        let deadline = clock.now + .milliseconds(15)
        clock.onMainActor(at: deadline) { ran.names.append(clock.now >= deadline ? "later" : "early") }
        clock.onMainActor(at: clock.now - .seconds(1)) { ran.names.append("passed") }
        #expect(await waitUntil(timeout: .seconds(10)) { ran.names.count == 2 })
        #expect(ran.names == ["passed", "later"])
    }
}
