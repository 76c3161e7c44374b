import BatonShell
import Handoff

/// What a terminal showing a shell session hears from its user.
public enum ShellViewerEvent: Sendable, Hashable {
    case input(ShellInput)
    case resize(rows: Int, columns: Int)
}

/// A terminal joined to a shell session: the keeper's messages and the user's input go
/// through `ShellViewerCore` on the main actor as they arrive (one hop from the thread that read
/// them), and what it decides is drawn and sent, in order.
@MainActor
public final class ShellViewer {
    private var core: ShellViewerCore
    private let stream: ContinuationStream
    private let show: @MainActor (ShellScreen, String?) -> Void
    private let outbox: AsyncStream<ShellMessage>.Continuation
    private let sending: Task<Void, Never>
    private var ending: ShellViewerCore.Ending?
    private var waiter: CheckedContinuation<Void, Never>?

    private init(stream: ContinuationStream, core: ShellViewerCore, show: @escaping @MainActor (ShellScreen, String?) -> Void) {
        self.stream = stream
        self.core = core
        self.show = show
        // Sent in order, each waiting for the keeper's window.
        let (messages, outbox) = AsyncStream<ShellMessage>.makeStream()
        self.outbox = outbox
        sending = Task {
            for await message in messages {
                do { try await stream.send(message.bytes) } catch { return }
            }
        }
    }

    /// Runs until the terminal leaves or the stream ends; returns why it ended.
    public static func run<Input: AsyncSequence & Sendable>(
        stream: ContinuationStream, core: ShellViewerCore, input: Input,
        show: @escaping @MainActor (ShellScreen, String?) -> Void
    ) async -> ShellViewerCore.Ending where Input.Element == ShellViewerEvent, Input.Failure == Never {
        let viewer = ShellViewer(stream: stream, core: core, show: show)
        viewer.outbox.yield(core.hello)
        let reading = Task { @MainActor in
            do {
                for try await bytes in stream.messages {
                    let message: ShellMessage
                    do {
                        message = try ShellMessage(bytes: bytes)
                    } catch ShellMessage.ReadError.unknownKind {
                        continue
                    } catch {
                        return viewer.finish(.broken("a message from the session did not read (\(error))"))
                    }
                    viewer.perform(viewer.core.receive(message))
                    if viewer.ending != nil { return }
                }
                viewer.finish(.broken("the session closed the connection"))
            } catch {
                viewer.finish(.broken("\(error)"))
            }
        }
        let typing = Task { @MainActor in
            for await event in input {
                switch event {
                case .input(let typed): viewer.perform(viewer.core.input(typed))
                case .resize(let rows, let columns): viewer.perform(viewer.core.resized(rows: rows, columns: columns))
                }
                if viewer.ending != nil { return }
            }
        }
        await withCheckedContinuation { continuation in
            if viewer.ending != nil { return continuation.resume() }
            viewer.waiter = continuation
        }
        reading.cancel()
        typing.cancel()
        // What was handed on goes out before CLOSE; a keeper that stopped reading does not hold
        // the terminal: the stream's close ends a send still waiting for its window.
        viewer.outbox.finish()
        await stream.close()
        viewer.sending.cancel()
        return viewer.ending ?? .broken("the session's connection ended")
    }

    private func perform(_ actions: [ShellViewerCore.Action]) {
        for action in actions where ending == nil {
            switch action {
            case .send(let message): outbox.yield(message)
            case .show(let screen, let status): show(screen, status)
            case .leave(let why): finish(why)
            }
        }
    }

    private func finish(_ why: ShellViewerCore.Ending) {
        guard ending == nil else { return }
        ending = why
        waiter?.resume()
        waiter = nil
    }
}
