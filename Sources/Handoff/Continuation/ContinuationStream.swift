import Synchronization
import HandoffWire

/// A duplex channel of messages between a continued activity's source and a listed device
/// (docs/PROTOCOL.md section 10, "Continuation streams"). Each `send` arrives whole and in
/// order at the other end's `messages`; `send` waits while the other end is slow to read.
///
/// The rules are `ContinuationStreamMachine`'s; this is its runner. Frames in come from the
/// pipe's own thread when it delivers (TCP), else from a task that reads it; frames out are
/// posted to the pipe in the order sealed when it posts (TCP), else written by a task in order;
/// a task ticks the machine at its deadlines.
public final class ContinuationStream: Sendable {
    /// Who is at the other end, as the handshake proved it.
    public struct Peer: Equatable, Sendable {
        /// Its sender id: its device's tag (proven by its signature) and its process's instance.
        public let senderID: SenderID
        /// Its device, whose signing key verified the handshake.
        public let device: PublicIdentity
        /// Its name on this device's list.
        public let name: String
    }

    public let peer: Peer
    /// The activity the stream belongs to.
    public let activityID: String

    struct Core: Sendable {
        var machine: ContinuationStreamMachine
        var sealer: StreamFrameSealer
        var opened: CheckedContinuation<ContinuationStreamFailure?, Never>?
        var reader: CheckedContinuation<Result<[UInt8]?, ContinuationStreamFailure>, Never>?
        var senders: [(number: Int, continuation: CheckedContinuation<ContinuationStreamFailure?, Never>)] = []
        var timerTarget: ContinuousClock.Instant?
        var timer: Task<Void, Never>?
        /// Frames go to `pipe.post` until it says it has none (then to the writer task, for good).
        var posts = true
        /// Where messages go as they arrive, instead of to a reader (`deliverMessages`).
        var pusher: Pusher?
        /// Taken from the machine for the pusher, in order, and not handed to it yet: the
        /// messages, then the end once.
        var pushes: [Result<[UInt8]?, ContinuationStreamFailure>] = []
        var endPushed = false
    }

    typealias Pusher = @Sendable (Result<[UInt8]?, HandoffError>) -> Void

    let core: Mutex<Core>
    /// Held while messages are handed to the pusher: one thread at a time, in order.
    let delivering = Mutex(())
    /// Frames in, as they arrive: one reader at a time (the pipe's delivery, or the reading task).
    let deframing: Mutex<StreamDeframer>
    let pipe: any StreamPipe
    let clock: any HandoffClock
    private let outgoing: AsyncStream<[UInt8]>.Continuation

    init(role: ContinuationStreamMachine.Role, activityID: String, peer: Peer, link: ContinuationLink, pipe: any StreamPipe, clock: any HandoffClock) {
        self.activityID = activityID
        self.peer = peer
        self.pipe = pipe
        self.clock = clock
        core = Mutex(Core(machine: ContinuationStreamMachine(role: role, now: clock.now), sealer: link.sealer))
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        outgoing = continuation
        Task { [pipe] in
            // One writer, so frames leave in the order they were sealed.
            for await bytes in stream {
                do { try await pipe.write(bytes) } catch { break }
            }
            await pipe.close()
        }
        deframing = Mutex(link.deframer)
        // Frames already read past the handshake come first.
        receive([])
        // Delivered from the pipe's own thread when it can; else a task reads.
        let delivered = pipe.deliver { [weak self] event in
            switch event {
            case .success(let chunk?): self?.receive(chunk)
            case .success(nil): self?.perform { $0.machine.linkEnded("the connection ended without CLOSE") }
            case .failure: self?.perform { $0.machine.linkEnded("the connection failed") }
            }
        }
        guard !delivered else { return }
        Task { [weak self] in
            while let self {
                let chunk: [UInt8]?
                do { chunk = try await pipe.read() } catch { self.perform { $0.machine.linkEnded("the connection failed") }; break }
                guard let chunk else { self.perform { $0.machine.linkEnded("the connection ended without CLOSE") }; break }
                if !self.receive(chunk) { break }
            }
        }
    }

    deinit { outgoing.finish() }

    func outgoingYield(_ bytes: [UInt8]) { outgoing.yield(bytes) }
    func outgoingFinish() { outgoing.finish() }

    // MARK: - Public

    /// Every message the other end sends, whole and in order. Ends when the stream is closed;
    /// throws `HandoffError.continuationStream` when it was lost or broke. Iterate it once.
    public var messages: Messages { Messages(stream: self) }

    /// The executor of the thread that reads this stream's connection and writes what it posts
    /// (a TCP connection's event loop), when it has one; nil for a pipe with no thread of its own
    /// (the relay's, the in-memory one). An actor on it that takes messages with
    /// `deliverMessages` and answers with `sendAtOnce` wakes no other thread.
    public var executor: (any SerialExecutor)? { pipe.executor }

    public struct Messages: AsyncSequence, Sendable {
        let stream: ContinuationStream
        public func makeAsyncIterator() -> Iterator { Iterator(stream: stream) }

        public struct Iterator: AsyncIteratorProtocol {
            let stream: ContinuationStream
            public mutating func next() async throws(HandoffError) -> [UInt8]? { try await stream.next(isolation: nil) }
            /// Runs on the caller's actor: a message already waiting is taken without leaving it.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(HandoffError) -> [UInt8]? {
                try await stream.next(isolation: actor)
            }
        }
    }

    /// Sends `message` (up to 32 MiB); returns once it is within the other end's window, and
    /// waits while it is not: a slow reader slows `send`, never the sender's other work.
    public func send(_ message: [UInt8]) async throws(HandoffError) {
        guard message.count <= ContinuationStreamLimits.maximumMessage else { throw failure(.messageTooLarge(message.count)) }
        let now = clock.now
        let outcome: ContinuationStreamFailure? = await withCheckedContinuation { continuation in
            let resume: ContinuationStreamFailure?? = perform { core in
                guard core.machine.isOpen else { return ([], .some(Self.failure(of: core.machine))) }
                let (number, actions) = core.machine.send(message, now: now)
                if core.machine.messagesWritten >= number { return (actions, .some(nil)) }
                core.senders.append((number, continuation))
                return (actions, nil)
            }
            if let resume { continuation.resume(returning: resume) }
        }
        if let outcome { throw failure(outcome) }
    }

    /// Whether a message of up to 64 KiB would be sent at once, without waiting.
    public var canSendWithoutWaiting: Bool { core.withLock { $0.machine.canSendWithoutWaiting } }

    /// Sends `message` now if it can go without waiting (the stream open, nothing queued before
    /// it, the credit enough for all of it) and says whether it went; when not, nothing was
    /// sent and the caller uses `send`. No task or thread is involved: a small message sent
    /// from the caller's thread.
    public func sendAtOnce(_ message: [UInt8]) -> Bool {
        guard message.count <= ContinuationStreamLimits.maximumMessage else { return false }
        let now = clock.now
        return perform { core in
            guard core.machine.canSendAtOnce(message.count) else { return ([], false) }
            return (core.machine.send(message, now: now).actions, true)
        }
    }

    /// Closes this end: CLOSE after every message sent, then the connection once the other end
    /// answers (at most 2 s later).
    public func close() async {
        let now = clock.now
        perform { $0.machine.close(now: now) }
    }

    // MARK: - Internals

    func failure(_ reason: ContinuationStreamFailure) -> HandoffError { .continuationStream(peer: peer.name, reason) }

    static func failure(of machine: ContinuationStreamMachine) -> ContinuationStreamFailure {
        switch machine.ending {
        case .refused(let code, let message): ContinuationStreamFailure(code: code, message: message)
        case .failed(let reason): .brokenRule(reason)
        case .lost(let reason): .lost(reason)
        case .closed, nil: .closed
        }
    }

    /// Waits for the answer to the OPEN (the opener) and says why it failed, or nil.
    func awaitOpened() async -> ContinuationStreamFailure? {
        await withCheckedContinuation { continuation in
            let ready: ContinuationStreamFailure?? = core.withLock { core in
                if core.machine.isOpen { return .some(nil) }
                if core.machine.ending != nil { return .some(Self.failure(of: core.machine)) }
                core.opened = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func next(isolation actor: isolated (any Actor)?) async throws(HandoffError) -> [UInt8]? {
        let now = clock.now
        let result: Result<[UInt8]?, ContinuationStreamFailure> = await withCheckedContinuation(isolation: actor) { continuation in
            let ready: Result<[UInt8]?, ContinuationStreamFailure>? = perform { core in
                let (message, actions) = core.machine.take(now: now)
                if let message { return (actions, .success(message)) }
                if core.machine.ending != nil {
                    let failure = Self.failure(of: core.machine)
                    return ([], failure == .closed ? .success(nil) : .failure(failure))
                }
                core.reader = continuation
                return ([], nil)
            }
            if let ready { continuation.resume(returning: ready) }
        }
        switch result {
        case .success(let message): return message
        case .failure(let reason): throw failure(reason)
        }
    }

    /// Opens every whole frame in `chunk` and hands it to the machine; false once the stream ended.
    @discardableResult
    private func receive(_ chunk: [UInt8]) -> Bool {
        var plaintexts: [[UInt8]] = []
        let opened = deframing.withLock { deframer -> Bool in
            deframer.append(chunk)
            while true {
                do {
                    guard let plaintext = try deframer.next() else { return true }
                    plaintexts.append(plaintext)
                } catch {
                    return false
                }
            }
        }
        for plaintext in plaintexts {
            let now = clock.now
            perform { $0.machine.receive(plaintext, now: now) }
        }
        guard opened else {
            perform { $0.machine.linkEnded("a frame did not open") }
            return false
        }
        return core.withLock { $0.machine.ending == nil }
    }
}

/// The continuation streams a center accepted, held weakly, for the limit on streams at once.
final class ContinuationStreamTally: Sendable {
    private final class Weak: Sendable {
        weak let stream: ContinuationStream?
        init(_ stream: ContinuationStream) { self.stream = stream }
    }
    private let streams = Mutex<[Weak]>([])

    func add(_ stream: ContinuationStream) {
        streams.withLock { $0.append(Weak(stream)) }
    }

    /// Streams not ended yet.
    var count: Int {
        streams.withLock { streams in
            streams.removeAll { weak in weak.stream.map { $0.core.withLock { $0.machine.ending != nil } } ?? true }
            return streams.count
        }
    }
}
