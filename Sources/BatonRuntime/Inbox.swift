import BatonApp
import Synchronization

/// The Program's inbox: every message the loop handles is posted here, from any thread, and the
/// loop takes them in order (`next`). It counts what is posted and not yet taken, so the loop
/// knows when nothing more is waiting and it is time to draw.
///
/// The loop waits on the main actor itself: a message posted from a network thread resumes it
/// there directly. Iterating an `AsyncStream` instead ran each `next()` on the global executor,
/// so every message woke a thread there and then the main queue's, and each wait hopped off the
/// main actor once more: about two wake-ups per live change a follower showed.
final class Inbox: Sendable {
    private struct State {
        var queue: [AppMessage] = []
        /// Where the first of `queue` is.
        var head = 0
        var waiter: CheckedContinuation<AppMessage?, Never>?
        var finished = false
    }

    private let state = Mutex(State())
    /// Posted and not yet taken by the loop: queued, or handed to it and not yet taken up.
    private let count = Atomic<Int>(0)

    init() {}

    /// Posts `message` behind the ones waiting; after `finish`, drops it.
    func yield(_ message: AppMessage) {
        let waiter = state.withLock { state -> CheckedContinuation<AppMessage?, Never>? in
            guard !state.finished else { return nil }
            count.add(1, ordering: .relaxed)
            guard let waiter = state.waiter else {
                state.queue.append(message)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: message)
    }

    /// The next message, in the order posted; nil once the inbox is finished and empty. One
    /// caller at a time (the loop), which waits where it runs (the main actor).
    func next(isolation: isolated (any Actor)? = #isolation) async -> AppMessage? {
        let message: AppMessage?
        if let ready = state.withLock({ Self.take(&$0) }) {
            message = ready
        } else {
            message = await withCheckedContinuation(isolation: isolation) { continuation in
                let ready = state.withLock { state -> AppMessage?? in
                    if let ready = Self.take(&state) { return ready }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
        if message != nil { count.subtract(1, ordering: .relaxed) }
        return message
    }

    /// The first message queued; `.some(nil)` when there is none and the inbox is finished; nil
    /// when there is none yet.
    private static func take(_ state: inout State) -> AppMessage?? {
        guard state.head < state.queue.count else { return state.finished ? .some(nil) : nil }
        let first = state.queue[state.head]
        state.head += 1
        // The taken ones are let go a batch at a time, not moved up one by one.
        if state.head == state.queue.count || state.head >= 64 {
            state.queue.removeFirst(state.head)
            state.head = 0
        }
        return .some(first)
    }

    /// Messages posted and not yet taken.
    var waiting: Int {
        count.load(ordering: .relaxed)
    }

    /// Ends the inbox: the loop ends once it has taken what is waiting.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<AppMessage?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
