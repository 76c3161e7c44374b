import Dispatch
import HandoffTesting
import Testing
@testable import Handoff

/// The main actor's timers on the system clock, kept by their own thread: each runs on the main
/// actor once its deadline has passed, in deadline order; one set again runs only its newest
/// body, at its newest deadline, earlier or later, and the timerfd waits for the earliest; one
/// cancelled runs nothing. Real time, waited for with a deadline.
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

    @Test("A timer set again for later takes the timerfd with it when it was the earliest, and runs once, at the later deadline")
    func movedLater() async {
        let timers = MainQueueTimers()
        let ran = Ran()
        let start = ContinuousClock.now
        let (a, b) = (timers.makeKey(), timers.makeKey())
        timers.set(a, at: start + .seconds(100)) { ran.names.append("a, replaced") }
        #expect(timers.armedDeadline == start + .seconds(100))
        timers.set(a, at: start + .seconds(200)) { ran.names.append("a, replaced again") }
        #expect(timers.armedDeadline == start + .seconds(200), "the timerfd follows its only timer")
        timers.set(b, at: start + .seconds(150)) { ran.names.append("b") }
        #expect(timers.armedDeadline == start + .seconds(150))
        timers.set(a, at: start + .seconds(300)) { ran.names.append("a, replaced a third time") }
        #expect(timers.armedDeadline == start + .seconds(150), "another timer is the earliest: the timerfd stays")
        timers.set(b, at: start + .seconds(250)) { ran.names.append("b, replaced") }
        #expect(timers.armedDeadline == start + .seconds(250), "the earliest of those left")
        timers.cancel(b)

        let first = ContinuousClock.now + .milliseconds(20)
        let deadline = first + .milliseconds(40)
        timers.set(a, at: first) { ran.names.append("a, too early") }
        timers.set(a, at: deadline) {
            if ContinuousClock.now < deadline { ran.early.append("a") }
            ran.names.append("a")
        }
        // A machine that stalled this thread past `first` between the two sets let the first run
        // before it was moved: only then may it have run.
        let movedInTime = ContinuousClock.now < first
        #expect(timers.armedDeadline == deadline)
        #expect(await waitUntil(timeout: .seconds(10)) { ran.names.contains("a") })
        #expect(ran.names == (movedInTime ? ["a"] : ran.names.filter { $0 != "a" } + ["a"]))
        #expect(ran.early.isEmpty, "it did not run before its later deadline")
        #expect(await waitUntil(timeout: .seconds(10)) { timers.armedDeadline == nil }, "nothing is left to wait for")
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
