import Foundation
import Handoff
import HandoffTesting
import Synchronization
import Testing

/// Virtual time: instants and dates move together, and sleepers wake when their deadline is
/// reached, earliest first.
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
    }

    @Test("The next deadline is the earliest sleeper's; advancing to it wakes that one only")
    func nextDeadline() async throws {
        let clock = ManualClock()
        let early = clock.now.advanced(by: .milliseconds(300))
        let late = clock.now.advanced(by: .seconds(2))
        let first = Task { try await clock.sleep(until: late) }  // wait-ok: the virtual clock under test, moved by the test
        let second = Task { try await clock.sleep(until: early) }  // wait-ok: the virtual clock under test, moved by the test
        #expect(await waitUntil { clock.sleeperCount == 2 })
        #expect(clock.nextDeadline == early)
        clock.advance(to: try #require(clock.nextDeadline))
        try await second.value
        #expect(clock.sleeperCount == 1)
        #expect(clock.nextDeadline == late)
        clock.advance(to: late)
        try await first.value
        #expect(clock.nextDeadline == nil)
    }

    @Test("A reading holds both under one lock; a reading moved on moves its date as far as its instant")
    func readings() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = ManualClock(start: start)
        clock.advance(by: .milliseconds(250))
        let reading = clock.reading
        #expect(reading.instant == clock.now)
        #expect(reading.date == start.addingTimeInterval(0.25))
        let later = reading.advanced(by: .seconds(3))
        #expect(later.instant - reading.instant == .seconds(3))
        #expect(later.date == reading.date.addingTimeInterval(3))
        #expect(reading.at(later.instant) == later)
        #expect(reading < later)
        // A date kept to be shown becomes an instant as the clock stood at the reading.
        #expect(reading.instant(at: reading.date.addingTimeInterval(0.3)) == reading.instant.advanced(by: .milliseconds(300)))
        #expect(reading.instant(at: reading.date.addingTimeInterval(-1)) == reading.instant.advanced(by: .seconds(-1)))
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
