import BatonShell
import Handoff
import NIOCore
import NIOPosix

/// What a terminal showing a shell session hears from its user.
public enum ShellViewerEvent: Sendable, Hashable {
    case input(ShellInput)
    case resize(rows: Int, columns: Int)
}

/// A terminal joined to a shell session, on the event loop that reads its stream's connection:
/// the keeper's messages go through `ShellViewerCore` where they were read and the screen is
/// drawn from there, and the user's input (`deliver`, from the thread that read it) crosses to
/// the loop once and leaves on the socket from it. No other thread is woken on the way.
public actor ShellViewer {
    nonisolated let loop: any EventLoop
    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    private var core: ShellViewerCore
    private let stream: ContinuationStream
    private let show: @Sendable (ShellScreen, String?) -> Void
    private let outbox: AsyncStream<[UInt8]>.Continuation
    private let messages: AsyncStream<[UInt8]>
    private var sending: Task<Void, Never>?
    /// Messages handed to `outbox` and not sent yet: while there are any, the next waits its turn.
    private var queued = 0
    private var ending: ShellViewerCore.Ending?
    private var waiter: CheckedContinuation<Void, Never>?
    /// Input delivered before `run` said hello: handled right after it, in order.
    private var early: [ShellViewerEvent]? = []

    /// A viewer of the session on `stream`; `show` draws, on the viewer's loop.
    public init(stream: ContinuationStream, core: ShellViewerCore, show: @escaping @Sendable (ShellScreen, String?) -> Void) {
        self.stream = stream
        self.core = core
        self.show = show
        loop = (stream.executor as? any EventLoop) ?? MultiThreadedEventLoopGroup.singleton.next()
        (messages, outbox) = AsyncStream<[UInt8]>.makeStream()
    }

    /// Sends `message` from here when it can go at once (nothing queued, the window open), else
    /// queues it: a key costs no hop to another task.
    private func post(_ message: ShellMessage) {
        let bytes = message.bytes
        if queued == 0, stream.sendAtOnce(bytes) { return }
        queued += 1
        outbox.yield(bytes)
    }

    /// What cannot go at once is sent in order, each waiting for the keeper's window.
    private func sendQueued() async {
        for await bytes in messages {
            do { try await stream.send(bytes) } catch { return }
            queued -= 1
        }
    }

    /// Runs with the user's input from `input` until the terminal leaves or the stream ends.
    public static func run<Input: AsyncSequence & Sendable>(
        stream: ContinuationStream, core: ShellViewerCore, input: Input,
        show: @escaping @Sendable (ShellScreen, String?) -> Void
    ) async -> ShellViewerCore.Ending where Input.Element == ShellViewerEvent, Input.Failure == Never {
        let viewer = ShellViewer(stream: stream, core: core, show: show)
        let typing = Task {
            for await event in input { viewer.deliver(event) }
        }
        defer { typing.cancel() }
        return await viewer.run()
    }

    /// Runs until the terminal leaves or the stream ends; returns why it ended. The user's input
    /// comes through `deliver`.
    public func run() async -> ShellViewerCore.Ending {
        sending = Task { await self.sendQueued() }
        post(core.hello)
        let waiting = early ?? []
        early = nil
        for event in waiting { handle(event) }
        let loop = loop
        stream.deliverMessages { [weak self] result in
            guard let self else { return }
            if loop.inEventLoop {
                self.assumeIsolated { $0.received(result) }
            } else {
                loop.execute { self.assumeIsolated { $0.received(result) } }
            }
        }
        if ending == nil { await withCheckedContinuation { waiter = $0 } }
        // What was handed on goes out before CLOSE; a keeper that stopped reading does not hold
        // the terminal: the stream's close ends a send still waiting for its window.
        outbox.finish()
        await stream.close()
        sending?.cancel()
        return ending ?? .broken("the session's connection ended")
    }

    /// A message from the keeper, or the end of the stream.
    private func received(_ result: Result<[UInt8]?, HandoffError>) {
        guard ending == nil else { return }
        switch result {
        case .success(let bytes?):
            let message: ShellMessage
            do {
                message = try ShellMessage(bytes: bytes)
            } catch ShellMessage.ReadError.unknownKind {
                return
            } catch {
                return finish(.broken("a message from the session did not read (\(error))"))
            }
            perform(core.receive(message))
        case .success(nil):
            finish(.broken("the session closed the connection"))
        case .failure(let error):
            // A link that dropped (not a refusal, not a broken rule) may come back.
            if case .continuationStream(_, .lost(let reason)) = error {
                finish(.lost(reason))
            } else {
                finish(.broken("\(error)"))
            }
        }
    }

    /// What the user did at the terminal, from any thread: handled on the viewer's loop, in the
    /// order delivered.
    public nonisolated func deliver(_ event: ShellViewerEvent) {
        if loop.inEventLoop {
            assumeIsolated { $0.handle(event) }
        } else {
            loop.execute { self.assumeIsolated { $0.handle(event) } }
        }
    }

    /// What the user did at the terminal.
    public func handle(_ event: ShellViewerEvent) {
        guard ending == nil else { return }
        if early != nil { return early!.append(event) }
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
