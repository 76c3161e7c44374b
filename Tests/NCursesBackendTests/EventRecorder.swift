import Foundation
import TerminalUI

/// Reads a backend's event stream in the background and lets a test wait,
/// with a deadline, until what arrived satisfies a condition.
final class EventRecorder: @unchecked Sendable {
    struct TimedOut: Error, CustomStringConvertible {
        let waitingFor: String
        let received: [TerminalEvent]
        let finished: Bool
        var description: String {
            "timed out waiting for \(waitingFor); received \(received), stream \(finished ? "finished" : "open")"
        }
    }

    private let lock = NSLock()
    private var received: [TerminalEvent] = []
    private var finished = false
    private var waiters: [UInt64: (condition: ([TerminalEvent], Bool) -> Bool, continuation: CheckedContinuation<[TerminalEvent], any Error>)] = [:]
    private var nextID: UInt64 = 0
    private var reader: Task<Void, Never>?

    init(_ stream: AsyncStream<[TerminalEvent]>) {
        reader = Task { [weak self] in
            for await batch in stream { self?.update { $0.received += batch } }
            self?.update { $0.finished = true }
        }
    }

    deinit { reader?.cancel() }

    var events: [TerminalEvent] { lock.withLock { received } }

    /// The keys received so far, in order.
    var keys: [Key] {
        events.compactMap { if case let .key(key) = $0 { key } else { nil } }
    }

    /// Waits until `condition(events, streamFinished)` holds; throws `TimedOut` at the deadline.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(5),
        until condition: @escaping ([TerminalEvent], Bool) -> Bool
    ) async throws -> [TerminalEvent] {
        let id: UInt64 = lock.withLock { nextID += 1; return nextID }
        return try await withCheckedThrowingContinuation { continuation in
            let ready: [TerminalEvent]? = lock.withLock {
                if condition(received, finished) { return received }
                waiters[id] = (condition, continuation)
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
                return
            }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)  // wait-ok: the deadline of a wait for events
                self?.expire(id, what: what)
            }
        }
    }

    /// Waits until the keys received include `expected` as a contiguous run.
    func waitForKeys(_ expected: [Key], timeout: Duration = .seconds(5)) async throws {
        try await wait(for: "keys \(expected)", timeout: timeout) { events, _ in
            let keys = events.compactMap { event -> Key? in if case let .key(key) = event { key } else { nil } }
            guard keys.count >= expected.count else { return false }
            return (0...(keys.count - expected.count)).contains { Array(keys[$0..<($0 + expected.count)]) == expected }
        }
    }

    private func update(_ change: (EventRecorder) -> Void) {
        let ready: [(CheckedContinuation<[TerminalEvent], any Error>, [TerminalEvent])] = lock.withLock {
            change(self)
            var ready: [(CheckedContinuation<[TerminalEvent], any Error>, [TerminalEvent])] = []
            for (id, waiter) in waiters where waiter.condition(received, finished) {
                waiters[id] = nil
                ready.append((waiter.continuation, received))
            }
            return ready
        }
        for (continuation, events) in ready { continuation.resume(returning: events) }
    }

    private func expire(_ id: UInt64, what: String) {
        let expired = lock.withLock { () -> (CheckedContinuation<[TerminalEvent], any Error>, TimedOut)? in
            guard let waiter = waiters.removeValue(forKey: id) else { return nil }
            return (waiter.continuation, TimedOut(waitingFor: what, received: received, finished: finished))
        }
        if let (continuation, error) = expired { continuation.resume(throwing: error) }
    }
}
