import Foundation
import Handoff
import Synchronization

/// A clock that moves only when a test says so: virtual time for every runner that takes a
/// `HandoffClock` (`ActivityCenter`, `StateFetcher`, the store's sync, the `Program`).
///
/// Its instants and its date move together: `advance` moves both. A sleeper waits for an
/// instant; it returns at once when that has been reached. Advancing wakes every sleeper whose
/// deadline has come, earliest first.
public final class ManualClock: HandoffClock {
    public typealias Instant = ContinuousClock.Instant

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
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
    public var reading: ClockReading {
        state.withLock { ClockReading(instant: origin.advanced(by: $0.elapsed), date: $0.date) }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    public var nextDeadline: Instant? {
        state.withLock { s in s.sleepers.map(\.deadline).min() }
    }

    private func reached(_ deadline: Instant, _ s: State) -> Bool {
        reached(deadline, elapsed: s.elapsed)
    }

    private func reached(_ deadline: Instant, elapsed: Duration) -> Bool {
        deadline <= origin.advanced(by: elapsed)
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
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
            let elapsed = s.elapsed
            let due = s.sleepers.filter { reached($0.deadline, elapsed: elapsed) }
            s.sleepers.removeAll { reached($0.deadline, elapsed: elapsed) }
            return due
        }
        // Earliest first: their order of waking is the order of their deadlines.
        let order = due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        for sleeper in order { sleeper.continuation.resume() }
    }
}
