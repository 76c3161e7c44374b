import BatonApp
import Synchronization

/// The Program's inbox: every message the loop handles is posted here, from any thread, and the
/// loop takes them in order (`next`). It counts what is posted and not yet taken, so the loop
/// knows when nothing more is waiting and it is time to draw.
///
/// With a drainer (`drainWhileWaiting`), a message posted while the loop waits is not handed to
/// the loop: the drainer is called once, to start a job of the main queue that takes what is
/// queued (`takeQueued`) as the loop would. A continuation resumed from a network thread goes
/// to the global executor first and hops to the main actor from there: two threads woken per
/// message (a follower's live change, a save's acknowledgement), where the main queue's job
/// wakes one.
final class Inbox: Sendable {
    private struct State {
        var queue: [AppMessage] = []
        /// Where the first of `queue` is.
        var head = 0
        var waiter: CheckedContinuation<AppMessage?, Never>?
        var finished = false
        /// Starts a job that takes what is queued, while the loop waits.
        var drainer: (@Sendable () -> Void)?
        /// The drainer was called and its job has not yet found the queue empty.
        var draining = false
    }

    private let state = Mutex(State())
    /// Posted and not yet taken by the loop: queued, or handed to it and not yet taken up.
    private let count = Atomic<Int>(0)

    init() {}

    /// Posts `message` behind the ones waiting; after `finish`, drops it.
    func yield(_ message: AppMessage) {
        enum Next {
            case nothing
            case resume(CheckedContinuation<AppMessage?, Never>)
            case drain(@Sendable () -> Void)
        }
        let next = state.withLock { state -> Next in
            guard !state.finished else { return .nothing }
            count.add(1, ordering: .relaxed)
            if let waiter = state.waiter, state.drainer == nil {
                state.waiter = nil
                return .resume(waiter)
            }
            state.queue.append(message)
            guard state.waiter != nil, let drainer = state.drainer, !state.draining else { return .nothing }
            state.draining = true
            return .drain(drainer)
        }
        switch next {
        case .nothing: break
        case .resume(let waiter): waiter.resume(returning: message)
        case .drain(let drainer): drainer()
        }
    }

    /// From now on, a message posted while the loop waits in `next` goes to `drainer`'s job
    /// instead: `drainer` is called once, and not again until that job found the queue empty
    /// (`takeQueued` returned nil).
    func drainWhileWaiting(_ drainer: @escaping @Sendable () -> Void) {
        state.withLock { $0.drainer = drainer }
    }

    /// For the drainer's job: the next message queued, taken as `next` takes it; nil when the
    /// queue is empty, and then the next post calls the drainer again.
    func takeQueued() -> AppMessage? {
        let message = state.withLock { state -> AppMessage? in
            if let ready = Self.take(&state), let message = ready { return message }
            state.draining = false
            return nil
        }
        if message != nil { count.subtract(1, ordering: .relaxed) }
        return message
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

    /// Whether the loop waits in `next`.
    var loopWaits: Bool {
        state.withLock { $0.waiter != nil }
    }

    /// Whether `finish` was called.
    var isFinished: Bool {
        state.withLock { $0.finished }
    }

    /// Messages posted and not yet taken.
    var waiting: Int {
        count.load(ordering: .relaxed)
    }

    /// Ends the inbox: the loop ends once it has taken what is waiting (a loop that waits while
    /// a drainer's job has messages queued is resumed with the first of them).
    func finish() {
        let (waiter, first) = state.withLock { state -> (CheckedContinuation<AppMessage?, Never>?, AppMessage?) in
            state.finished = true
            defer { state.waiter = nil }
            guard state.waiter != nil, let ready = Self.take(&state) else { return (state.waiter, nil) }
            return (state.waiter, ready)
        }
        waiter?.resume(returning: first)
    }
}
