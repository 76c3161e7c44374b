import Foundation
import Handoff
import HandoffTesting
import Synchronization
import HandoffWire

/// Runs a `StateFetcher` on a `ManualClock` over `InMemoryStreams`, moving virtual time only
/// when the fetch is really stuck: sleeping out a backoff, or racing a read or connect that
/// is parked (it can only end by a timeout). It records every wait it let pass.
struct FetchDriver {
    let streams: InMemoryStreams
    let clock = ManualClock()

    /// The backoffs the fetcher sleeps between connections, in seconds.
    static let backoffs: Set<TimeInterval> = [0.1, 0.2, 0.4, 0.8]

    struct Outcome {
        var result: Result<[UInt8], StreamFailure>
        /// Virtual seconds let pass, in order.
        var waits: [TimeInterval]
        /// Every progress report: (received, resumes).
        var progress: [(received: Int, resumes: Int)]

        var failure: StreamFailure? {
            if case .failure(let failure) = result { return failure }
            return nil
        }
        var state: [UInt8]? { try? result.get() }
        var elapsed: TimeInterval { waits.reduce(0, +) }
    }

    /// A fetcher as the fixed client device (`StreamFixtures.client`) following an OFFER opened with `key`.
    func fetcher(key: GroupKey = Fixtures.key) -> StateFetcher {
        StateFetcher(identity: StreamFixtures.client, groupKey: key, dialer: streams, clock: clock)
    }

    /// Fetches `request` from `source` (the fixed server device) at `host:port`.
    func run(
        _ request: StateRequest, host: String = "source", port: Int = 7000, key: GroupKey = Fixtures.key,
        source: StreamSource = StreamFixtures.server.asSource, realTimeLimit: Duration = .seconds(60)
    ) async -> Outcome {
        let reports = Mutex<[(received: Int, resumes: Int)]>([])
        let fetcher = fetcher(key: key)
        let task = Task { () -> Result<[UInt8], StreamFailure> in
            do throws(StreamFailure) {
                return .success(try await fetcher.fetch(from: host, port: port, source: source, request: request) { received, resumes in
                    reports.withLock { $0.append((received, resumes)) }
                })
            } catch {
                return .failure(error)
            }
        }
        let waits = await drive(until: task, realTimeLimit: realTimeLimit)
        return Outcome(result: await task.value, waits: waits, progress: reports.withLock { $0 })
    }

    /// Moves the clock whenever the fetch is stuck, until `task` ends.
    func drive<T: Sendable>(until task: Task<T, Never>, realTimeLimit: Duration) async -> [TimeInterval] {
        let done = Atomic<Bool>(false)
        let watcher = Task {
            _ = await task.value
            done.store(true, ordering: .sequentiallyConsistent)
        }
        defer { watcher.cancel() }
        var waits: [TimeInterval] = []
        let deadline = ContinuousClock.now + realTimeLimit
        while !done.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline {
            if let next = clock.nextDeadline, next > clock.now {
                let wait = ((next - clock.now).seconds * 1000).rounded() / 1000
                if Self.backoffs.contains(wait) || streams.parkedCount > 0 {
                    waits.append(wait)
                    clock.advance(to: next)
                    continue
                }
            }
            try? await Task.sleep(for: .milliseconds(1))  // wait-ok: polls a condition until its deadline
        }
        if !done.load(ordering: .sequentiallyConsistent) { task.cancel() }
        return waits
    }

    /// Waits (in real time, with a deadline) until `condition` holds, looking 1 ms apart at first
    /// and backing off to 25 ms, as `HandoffTesting.waitUntil` does and for the same reason.
    static func waitUntil(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        var pause = Duration.milliseconds(1)
        while !condition() {
            let now = ContinuousClock.now
            if now >= deadline { return false }
            try? await Task.sleep(for: min(pause, deadline - now))  // wait-ok: polls a condition until its deadline
            pause = min(pause * 2, .milliseconds(25))
        }
        return true
    }
}
