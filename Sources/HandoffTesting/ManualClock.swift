import Foundation
import Handoff
import Synchronization

/// A clock that moves only when a test says so: virtual time for `ActivityCenter`.
///
/// `sleep(until:)` suspends until `advance` reaches the deadline; a deadline already reached
/// returns at once. Advancing wakes every sleeper whose deadline has come, earliest first.
public final class ManualClock: HandoffClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// A clock standing at `start` (by default a fixed, round instant, so runs repeat).
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline anyone sleeps until.
    public var nextDeadline: Date? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(until deadline: Date) async throws {
        let id: UInt64? = state.withLock { s in
            guard deadline > s.now else { return nil }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return try Task.checkCancellation() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock that `onCancel` takes: a cancel either sees the sleeper or is seen here.
                let outcome: Result<Bool, CancellationError> = state.withLock { s in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= s.now { return .success(true) }
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
        let (seconds, attoseconds) = duration.components
        advance(to: now.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18))
    }

    /// Moves time on to `instant` (never back) and wakes the sleepers whose deadline it reached.
    public func advance(to instant: Date) {
        let due: [Sleeper] = state.withLock { s in
            if instant > s.now { s.now = instant }
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
