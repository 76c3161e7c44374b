import BatonShell
import Handoff

/// What a terminal showing a shell session hears from its user.
public enum ShellViewerEvent: Sendable, Hashable {
    case input(ShellInput)
    case resize(rows: Int, columns: Int)
}

/// A terminal joined to a shell session: the keeper's messages and the user's input go
/// through `ShellViewerCore`, and what it decides is drawn and sent, in order.
@MainActor
public enum ShellViewer {
    /// Runs until the terminal leaves or the stream ends; returns why it ended.
    public static func run(
        stream: ContinuationStream, core start: ShellViewerCore, input: AsyncStream<ShellViewerEvent>,
        show: @escaping @MainActor (ShellScreen, String?) -> Void
    ) async -> ShellViewerCore.Ending {
        enum Event: Sendable {
            case message(ShellMessage)
            case input(ShellViewerEvent)
            case lost(String)
        }
        var core = start
        let (events, feed) = AsyncStream<Event>.makeStream()
        let reading = Task {
            do {
                for try await bytes in stream.messages {
                    do {
                        feed.yield(.message(try ShellMessage(bytes: bytes)))
                    } catch ShellMessage.ReadError.unknownKind {
                        continue
                    } catch {
                        feed.yield(.lost("a message from the session did not read (\(error))"))
                        return
                    }
                }
                feed.yield(.lost("the session closed the connection"))
            } catch {
                feed.yield(.lost("\(error)"))
            }
        }
        let typing = Task {
            for await event in input { feed.yield(.input(event)) }
        }
        // Sent in order, each waiting for the keeper's window.
        let (outbox, queue) = AsyncStream<ShellMessage>.makeStream()
        let sending = Task {
            for await message in outbox {
                do { try await stream.send(message.bytes) } catch { return }
            }
        }
        defer {
            reading.cancel()
            typing.cancel()
        }
        queue.yield(core.hello)
        var ending = ShellViewerCore.Ending.broken("the session's connection ended")
        loop: for await event in events {
            let actions: [ShellViewerCore.Action]
            switch event {
            case .message(let message): actions = core.receive(message)
            case .input(.input(let typed)): actions = core.input(typed)
            case .input(.resize(let rows, let columns)): actions = core.resized(rows: rows, columns: columns)
            case .lost(let reason):
                ending = .broken(reason)
                break loop
            }
            for action in actions {
                switch action {
                case .send(let message): queue.yield(message)
                case .show(let screen, let status): show(screen, status)
                case .leave(let why):
                    ending = why
                    break loop
                }
            }
        }
        // What was handed on goes out before CLOSE; a keeper that stopped reading does not hold
        // the terminal: the stream's close ends a send still waiting for its window.
        queue.finish()
        await stream.close()
        sending.cancel()
        return ending
    }
}
