import BatonApp
import Synchronization

/// The Program's inbox: every message the loop handles is posted here, from any task; it
/// also counts what is posted and not yet taken, so the loop knows when nothing more is
/// waiting and it is time to draw.
struct Inbox: Sendable {
    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    private let continuation: AsyncStream<AppMessage>.Continuation
    private let count = Count()

    init(_ continuation: AsyncStream<AppMessage>.Continuation) {
        self.continuation = continuation
    }

    /// Posts `message` behind the ones waiting.
    func yield(_ message: AppMessage) {
        count.value.add(1, ordering: .relaxed)
        if case .terminated = continuation.yield(message) { count.value.subtract(1, ordering: .relaxed) }
    }

    /// The loop took one message.
    func taken() {
        count.value.subtract(1, ordering: .relaxed)
    }

    /// Messages posted and not yet taken.
    var waiting: Int {
        count.value.load(ordering: .relaxed)
    }

    /// Ends the stream: the loop ends once it has taken what is waiting.
    func finish() {
        continuation.finish()
    }
}
