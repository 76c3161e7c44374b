import HandoffTesting
import Testing
@testable import Handoff

/// The runners' one timer: it fires once, at the earliest deadline asked for; a later one leaves
/// it; an earlier one takes its place; a stopped one never fires. On the system clock a later one
/// moves a timer made to move.
@MainActor
@Suite("One timer for an engine's next deadline")
struct DeadlineTimerTests {
    final class Fired {
        var times: [Duration] = []
    }

    @Test("Fires once at the earliest deadline; a later one leaves it, an earlier one replaces it, stop ends it")
    func earliest() async {
        let clock = ManualClock()
        let fired = Fired()
        let start = clock.now
        let timer = DeadlineTimer(clock: clock) { fired.times.append(clock.now - start) }
        timer.schedule(start + .seconds(5))
        timer.schedule(start + .seconds(8))
        #expect(timer.deadline == start + .seconds(5), "a later deadline leaves the timer as it is")
        timer.schedule(start + .seconds(3))
        #expect(timer.deadline == start + .seconds(3))
        #expect(await waitUntil { clock.sleeperCount == 2 })
        clock.advance(by: .seconds(3))
        #expect(await waitUntil { fired.times.count == 1 })
        #expect(timer.deadline == nil)
        clock.advance(by: .seconds(3))
        // The one replaced (5 s) finds itself not the newest and does nothing.
        #expect(await waitUntil { clock.sleeperCount == 0 })
        #expect(fired.times == [.seconds(3)])

        timer.schedule(clock.now + .seconds(1))
        timer.stop()
        #expect(timer.deadline == nil)
        timer.schedule(nil)
        clock.advance(by: .seconds(2))
        #expect(await waitUntil { clock.sleeperCount == 0 })
        timer.schedule(clock.now + .seconds(1))
        clock.advance(by: .seconds(1))
        #expect(await waitUntil { fired.times.count == 2 })
        #expect(fired.times == [.seconds(3), .seconds(9)], "the stopped one never fired")
    }

    @Test("On the system clock, a deadline already passed fires once, behind the work in hand; one stopped first never fires")
    func dueOnTheSystemClock() async {
        let clock = SystemClock()
        let fired = Fired()
        let timer = DeadlineTimer(clock: clock) { fired.times.append(.zero) }
        timer.schedule(clock.now - .seconds(1))
        #expect(fired.times.isEmpty, "not inside schedule: behind the work in hand")
        #expect(await waitUntil(timeout: .seconds(10)) { fired.times.count == 1 })
        timer.schedule(clock.now)
        timer.stop()
        let later = DeadlineTimer(clock: clock) { fired.times.append(.seconds(1)) }
        later.schedule(clock.now + .milliseconds(20))
        #expect(await waitUntil(timeout: .seconds(10)) { fired.times.count >= 2 })
        #expect(fired.times == [.zero, .seconds(1)], "the stopped one did not fire")
    }

    @Test("On the system clock, a later deadline moves a timer made to move: it fires once, at the later deadline; one not made to move stays")
    func laterOnTheSystemClock() async {
        let clock = SystemClock()
        let fired = Fired()
        let start = clock.now
        let later = start + .milliseconds(80)
        let staying = DeadlineTimer(clock: clock) {}
        staying.schedule(start + .seconds(100))
        staying.schedule(start + .seconds(200))
        #expect(staying.deadline == start + .seconds(100), "a later deadline leaves it")
        staying.stop()
        let timer = DeadlineTimer(clock: clock, movesLater: true) { fired.times.append(clock.now - start) }
        timer.schedule(start + .milliseconds(20))
        timer.schedule(later)
        #expect(timer.deadline == later)
        #expect(await waitUntil(timeout: .seconds(10)) { !fired.times.isEmpty })
        #expect(fired.times.count == 1)
        #expect(fired.times.allSatisfy { $0 >= .milliseconds(80) }, "not at the first deadline: \(fired.times)")
        #expect(timer.deadline == nil)
    }
}

