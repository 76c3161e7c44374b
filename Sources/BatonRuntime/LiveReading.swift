import BatonApp
import Handoff
import Logging
import Synchronization

/// What a live link's messages become for the Program, as the stream hands them on
/// (`ContinuationStream.deliverMessages`): each is read where it arrives, the connection's event
/// loop, and posted to the inbox from there. A follower's change per key so crosses no thread
/// between the socket and the Program; read through `messages` in a task of its own, it woke a
/// thread of the global executor for every key.
///
/// A large message (a whole 16 MB state) is read on a task of its own instead, so the event
/// loop is not held for tens of milliseconds; whatever arrives while one is being read follows it
/// there, so the inbox gets them in the order sent.
final class LiveReading: Sendable {
    /// Messages this long or longer are read off the event loop.
    static let largeMessage = 64 * 1024

    let link: Int
    let stream: ContinuationStream
    let inbox: Inbox
    let logger: Logger
    /// What waits for the background reader, in order.
    private let behind: AsyncStream<Result<[UInt8]?, HandoffError>>.Continuation
    /// Messages handed to the background reader and not yet posted.
    private let waiting = Atomic<Int>(0)
    /// The link's end was posted: nothing more is.
    private let ended = Atomic<Bool>(false)

    init(link: Int, stream: ContinuationStream, inbox: Inbox, logger: Logger) {
        self.link = link
        self.stream = stream
        self.inbox = inbox
        self.logger = logger
        let (messages, continuation) = AsyncStream.makeStream(of: Result<[UInt8]?, HandoffError>.self)
        behind = continuation
        Task.detached { [self] in
            for await result in messages {
                handle(result)
                waiting.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// Starts handing the stream's messages on.
    func start() {
        stream.deliverMessages { [self] result in take(result) }
    }

    /// One message, or the end, from the stream (one call at a time, in order).
    private func take(_ result: Result<[UInt8]?, HandoffError>) {
        if waiting.load(ordering: .sequentiallyConsistent) == 0, !Self.isLarge(result) {
            return handle(result)
        }
        waiting.add(1, ordering: .sequentiallyConsistent)
        behind.yield(result)
    }

    private static func isLarge(_ result: Result<[UInt8]?, HandoffError>) -> Bool {
        guard case .success(let bytes?) = result else { return false }
        return bytes.count >= largeMessage
    }

    private func handle(_ result: Result<[UInt8]?, HandoffError>) {
        guard !ended.load(ordering: .sequentiallyConsistent) else { return }
        switch result {
        case .success(let bytes?):
            let message: LiveMessage
            do {
                message = try LiveMessage(bytes: bytes)
            } catch LiveMessage.ReadError.unknownKind {
                return  // a later Baton's: skipped (docs/PROTOCOL.md, section 19)
            } catch {
                logger.warning("live link \(link): a message Baton cannot read (\(error))")
                end(problem: "a message Baton cannot read (\(error))")
                let stream = stream
                Task { await stream.close() }
                return
            }
            logger.debug("live link \(link): \(bytes.count) bytes")
            inbox.yield(.liveReceived(link: link, message))
        case .success(nil):
            logger.info("live link \(link) closed by the other end")
            end(problem: nil)
        case .failure(let error):
            logger.info("live link \(link) lost: \(error.description)")
            end(problem: error.description)
        }
    }

    private func end(problem: String?) {
        ended.store(true, ordering: .sequentiallyConsistent)
        inbox.yield(.liveEnded(link: link, problem: problem))
        behind.finish()
    }
}
