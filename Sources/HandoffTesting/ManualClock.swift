import Foundation
import Handoff
import Synchronization

/// A clock that moves only when a test says so: virtual time for every runner that takes a
/// `HandoffClock` (`ActivityCenter`, `StateFetcher`, the store's sync, the `Program`).
///
/// Its instants and its date move together: `advance` moves both. A sleeper waits for an
/// instant, or for a date (the deadlines `HandoffCore` still gives as dates are compared as
/// dates, exactly as the core compares them); it returns at once when that has been reached.
/// Advancing wakes every sleeper whose deadline has come, earliest first.
public final class ManualClock: HandoffClock {
    public typealias Instant = ContinuousClock.Instant

    private enum Deadline {
        case instant(Instant)
        case date(Date)
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Deadline
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var elapsed: Duration = .zero
        /// The date now: moved by each advance as `Date` adds, so that a test's dates are the
        /// ones it computes the same way.
        var date: Date
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    /// The instant at which the clock started.
    private let origin: Instant
    private let state: Mutex<State>

    /// A clock standing at `start` (by default a fixed, round instant, so runs repeat).
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        origin = .now
        state = Mutex(State(date: start))
    }

    public var now: Instant { origin.advanced(by: state.withLock { $0.elapsed }) }
    public var date: Date { state.withLock { $0.date } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How long the clock has been advanced since it started.
    public var elapsed: Duration { state.withLock { $0.elapsed } }

    /// Both readings under one lock: a test advancing the clock from another thread cannot
    /// come between them.
    public func instant(at date: Date) -> Instant {
        let (elapsed, then) = state.withLock { ($0.elapsed, $0.date) }
        return Self.instant(at: date, now: origin.advanced(by: elapsed), date: then)
    }

    /// The wall-clock date this clock shows at `instant`.
    public func date(at instant: Instant) -> Date {
        let (elapsed, date) = state.withLock { ($0.elapsed, $0.date) }
        return date.addingTimeInterval((instant - origin.advanced(by: elapsed)).seconds)
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until, as the date the clock will show then.
    public var nextDeadline: Date? {
        state.withLock { s in
            s.sleepers.map { sleeper -> Date in
                switch sleeper.deadline {
                case .date(let date): date
                case .instant(let instant): s.date.addingTimeInterval((instant - origin.advanced(by: s.elapsed)).seconds)
                }
            }.min()
        }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try await sleep(.instant(deadline))
    }

    public func sleep(untilDate date: Date) async throws {
        try await sleep(.date(date))
    }

    public func onMainActor(atDate date: Date, _ body: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in
            try? await sleep(untilDate: date)
            body()
        }
    }

    private func reached(_ deadline: Deadline, _ s: State) -> Bool {
        reached(deadline, elapsed: s.elapsed, date: s.date)
    }

    private func reached(_ deadline: Deadline, elapsed: Duration, date now: Date) -> Bool {
        switch deadline {
        case .instant(let instant): instant <= origin.advanced(by: elapsed)
        case .date(let date): date <= now
        }
    }

    private func sleep(_ deadline: Deadline) async throws {
        let id: UInt64? = state.withLock { s in
            guard !reached(deadline, s) else { return nil }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return try Task.checkCancellation() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock that `onCancel` takes: a cancel either sees the sleeper or is seen here.
                let outcome: Result<Bool, CancellationError> = state.withLock { s in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if reached(deadline, s) { return .success(true) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let cancelled = state.withLock { s -> Sleeper? in
                guard let index = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time on by `duration` and wakes the sleepers whose deadline it reached.
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        move { s in
            s.elapsed += duration
            s.date = s.date.addingTimeInterval(duration.seconds)
        }
    }

    /// Moves time on to `instant` (never back) and wakes the sleepers whose deadline it reached.
    public func advance(to instant: Instant) {
        advance(by: instant - now)
    }

    /// Moves time on until the clock shows exactly `date` (never back).
    public func advance(to date: Date) {
        move { s in
            guard date > s.date else { return }
            s.elapsed += .microseconds(Int64((date.timeIntervalSince(s.date) * 1e6).rounded()))
            s.date = date
        }
    }

    private func move(_ change: (inout State) -> Void) {
        let due: [Sleeper] = state.withLock { s in
            change(&s)
            let (elapsed, date) = (s.elapsed, s.date)
            let due = s.sleepers.filter { reached($0.deadline, elapsed: elapsed, date: date) }
            s.sleepers.removeAll { reached($0.deadline, elapsed: elapsed, date: date) }
            return due
        }
        // Earliest first: their order of waking is the order of their deadlines.
        let order = due.sorted { a, b in
            switch (a.deadline, b.deadline) {
            case (.date(let x), .date(let y)): x < y
            case (.instant(let x), .instant(let y)): x < y
            default: a.id < b.id
            }
        }
        for sleeper in order { sleeper.continuation.resume() }
    }
}
