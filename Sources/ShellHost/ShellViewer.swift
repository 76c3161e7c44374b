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
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private var sending: Task<Void, Never>?
    /// Messages handed to `outbox` and not sent yet: while there are any, the next waits its turn.
    private var queued = 0
    private var ending: ShellViewerCore.Ending?
    private var waiter: CheckedContinuation<Void, Never>?

    public init(stream: ContinuationStream, core: ShellViewerCore, show: @escaping @MainActor (ShellScreen, String?) -> Void) {
        self.stream = stream
        self.core = core
        self.show = show
        // What cannot go at once is sent in order, each waiting for the keeper's window.
        let (messages, outbox) = AsyncStream<[UInt8]>.makeStream()
        self.outbox = outbox
        sending = Task { @MainActor [weak self] in
            for await bytes in messages {
                do { try await stream.send(bytes) } catch { return }
                self?.queued -= 1
            }
        }
    }

    /// Sends `message` from here when it can go at once (nothing queued, the window open), else
    /// queues it: a key costs no hop to another task.
    private func post(_ message: ShellMessage) {
        let bytes = message.bytes
        if queued == 0, stream.sendAtOnce(bytes) { return }
        queued += 1
        outbox.yield(bytes)
    }

    /// Runs with the user's input from `input` until the terminal leaves or the stream ends.
    public static func run<Input: AsyncSequence & Sendable>(
        stream: ContinuationStream, core: ShellViewerCore, input: Input,
        show: @escaping @MainActor (ShellScreen, String?) -> Void
    ) async -> ShellViewerCore.Ending where Input.Element == ShellViewerEvent, Input.Failure == Never {
        let viewer = ShellViewer(stream: stream, core: core, show: show)
        let typing = Task { @MainActor in
            for await event in input {
                viewer.handle(event)
                if viewer.ending != nil { return }
            }
        }
        defer { typing.cancel() }
        return await viewer.run()
    }

    /// Runs until the terminal leaves or the stream ends; returns why it ended. The user's input
    /// comes through `handle`.
    public func run() async -> ShellViewerCore.Ending {
        post(core.hello)
        let stream = self.stream
        let reading = Task { @MainActor [self] in
            do {
                for try await bytes in stream.messages {
                    let message: ShellMessage
                    do {
                        message = try ShellMessage(bytes: bytes)
                    } catch ShellMessage.ReadError.unknownKind {
                        continue
                    } catch {
                        return finish(.broken("a message from the session did not read (\(error))"))
                    }
                    perform(core.receive(message))
                    if ending != nil { return }
                }
                finish(.broken("the session closed the connection"))
            } catch {
                // A link that dropped (not a refusal, not a broken rule) may come back.
                if case .continuationStream(_, .lost(let reason))? = error as? HandoffError {
                    finish(.lost(reason))
                } else {
                    finish(.broken("\(error)"))
                }
            }
        }
        await withCheckedContinuation { continuation in
            if ending != nil { return continuation.resume() }
            waiter = continuation
        }
        reading.cancel()
        // What was handed on goes out before CLOSE; a keeper that stopped reading does not hold
        // the terminal: the stream's close ends a send still waiting for its window.
        outbox.finish()
        await stream.close()
        sending?.cancel()
        return ending ?? .broken("the session's connection ended")
    }

    /// What the user did at the terminal.
    public func handle(_ event: ShellViewerEvent) {
        guard ending == nil else { return }
        switch event {
        case .input(let typed): perform(core.input(typed))
        case .resize(let rows, let columns): perform(core.resized(rows: rows, columns: columns))
        }
    }

    /// The screen last shown, for a terminal that says what happened over it.
    public var screen: ShellScreen? { core.screen }

    private func perform(_ actions: [ShellViewerCore.Action]) {
        for action in actions where ending == nil {
            switch action {
            case .send(let message): post(message)
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
