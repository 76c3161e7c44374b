import Foundation
import Handoff
import HandoffTesting
import Synchronization
import Testing

/// Virtual time: instants and dates move together, sleepers wake when their deadline is reached,
/// and a deadline given as a date is compared as a date.
@Suite("ManualClock")
struct ManualClockTests {
    @Test("Advancing moves the instant and the date together, never back")
    func movesTogether() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = ManualClock(start: start)
        let origin = clock.now
        clock.advance(by: .milliseconds(1500))
        #expect(clock.now - origin == .milliseconds(1500))
        #expect(clock.date == start.addingTimeInterval(1.5))
        #expect(clock.elapsed == .milliseconds(1500))
        clock.advance(to: start)  // back: ignored
        #expect(clock.date == start.addingTimeInterval(1.5))
        clock.advance(to: start.addingTimeInterval(2))
        #expect(clock.date == start.addingTimeInterval(2))
        #expect(clock.now - origin == .seconds(2))
    }

    @Test("A sleeper wakes when time reaches its deadline, not before; a reached one returns at once")
    func sleepers() async throws {
        let clock = ManualClock()
        let deadline = clock.now.advanced(by: .seconds(30))
        let woke = Mutex(false)
        let task = Task {
            try await clock.sleep(until: deadline)  // wait-ok: the virtual clock under test, moved by the test
            woke.withLock { $0 = true }
        }
        #expect(await waitUntil { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(29))
        #expect(clock.sleeperCount == 1)
        #expect(!woke.withLock { $0 })
        clock.advance(by: .seconds(1))
        try await task.value
        #expect(woke.withLock { $0 })
        // Already reached: at once.
        try await clock.sleep(until: deadline)  // wait-ok: the virtual clock under test, moved by the test
        try await clock.sleep(untilDate: clock.date)  // wait-ok: the virtual clock under test, moved by the test
    }

    @Test("A deadline given as a date wakes exactly when the clock shows that date, whatever the rounding")
    func dateDeadlines() async throws {
        let clock = ManualClock()
        let due = clock.date.addingTimeInterval(0.3)
        let task = Task { try await clock.sleep(untilDate: due) }  // wait-ok: the virtual clock under test, moved by the test
        #expect(await waitUntil { clock.sleeperCount == 1 })
        #expect(clock.nextDeadline == due)
        clock.advance(by: .milliseconds(299))
        #expect(clock.sleeperCount == 1)
        clock.advance(to: try #require(clock.nextDeadline))
        try await task.value
        #expect(clock.sleeperCount == 0)
        #expect(clock.date == due)
    }

    @Test("A cancelled sleeper leaves the clock and throws")
    func cancelled() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(for: .seconds(5)) }  // wait-ok: the virtual clock under test, moved by the test
        #expect(await waitUntil { clock.sleeperCount == 1 })
        task.cancel()
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(clock.sleeperCount == 0)
    }
}
