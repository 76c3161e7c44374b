import Handoff
import NIOCore
import NIOPosix
import Synchronization
import HandoffWire

/// Opens state-stream connections over TCP for `StateFetcher`.
///
/// Reads are pulled, not pushed: the socket is read only while less than `readAhead` bytes
/// wait for the fetcher, and one `read()` takes everything that waits, in one array, so a fast
/// source costs one hand-over per batch of socket reads rather than one per packet. The reads
/// fill two buffers in turn, each at most about `readAhead` bytes, so a fetch touches little
/// fresh memory besides the state itself.
public struct TCPStreamDialer: StreamDialer {
    public let group: any EventLoopGroup
    public let connectTimeout: TimeAmount
    /// Bytes read ahead of the fetcher before the socket is left unread. 1 MiB: the first
    /// fetch of a process (what `baton --continue-activity` does) took 40–48 ms for 16 MiB in
    /// `handoff-bench stream` against 43–62 ms with 4 MiB, whose buffers' page faults it paid.
    public let readAhead: Int
    /// The socket's receive buffer (`SO_RCVBUF`), or nil for the kernel's autotuning. Setting it
    /// ends autotuning: the kernel then holds at most about twice this for the connection, so a
    /// fetcher that stops reading stops the source soon (tests of a paused client use it).
    public let receiveBufferSize: Int?

    public init(
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, connectTimeout: TimeAmount = .seconds(2),
        readAhead: Int = 1 << 20, receiveBufferSize: Int? = nil
    ) {
        self.group = group
        self.connectTimeout = connectTimeout
        self.readAhead = readAhead
        self.receiveBufferSize = receiveBufferSize
    }

    public func connect(host: String, port: Int) async throws -> any StreamConnection {
        let readAhead = readAhead
        var bootstrap = ClientBootstrap(group: group)
        if let receiveBufferSize {
            // Before connect, so the window the connection offers follows it.
            bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferSize))
        }
        bootstrap = bootstrap
            .connectTimeout(connectTimeout)
            .channelOption(.autoRead, value: false)
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 4096, initial: 65_536, maximum: 1 << 20))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = TCPStreamConnection(channel: channel, readAhead: readAhead)
                    try channel.pipeline.syncOperations.addHandler(StreamReadHandler(connection: connection))
                }
            }
        do {
            let channel = try await TCPStreamConnection.cancellable(bootstrap.connect(host: host, port: port)) { late in
                late.close(promise: nil)  // connected after the task gave up on it
            }
            return try await channel.pipeline.handler(type: StreamReadHandler.self).map(\.connection).get()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw StreamFailure.connectionLost("could not connect to \(host):\(port): \(Self.reason(for: error))")
        }
    }

    /// `Connection refused, errno 111` or `no answer within 2 s`, rather than NIO's nested errors.
    static func reason(for error: any Error) -> String {
        if let connection = error as? NIOConnectionError, let first = connection.connectionErrors.first {
            return reason(for: first.error)
        }
        if case ChannelError.connectTimeout(let timeout) = error {
            let milliseconds = timeout.nanoseconds / 1_000_000
            return milliseconds % 1000 == 0 ? "no answer within \(milliseconds / 1000) s" : "no answer within \(milliseconds) ms"
        }
        return MulticastError.reason(for: error)
    }
}

/// One TCP connection to a source, as a `StreamConnection`.
final class TCPStreamConnection: StreamConnection {
    struct Inbox {
        var bytes: [UInt8] = []
        /// The bytes handed to the reader last time: its storage is read into again once the
        /// reader, asking for more, has let go of it, so a transfer fills two buffers in turn
        /// rather than a new one (and its page faults) per read.
        var handedOut: [UInt8] = []
        var ended = false
        var error: StreamFailure?
        /// The socket is left unread until the fetcher takes what waits.
        var paused = false
        var reader: (id: UInt64, continuation: CheckedContinuation<[UInt8]?, any Error>)?
        var nextReaderID: UInt64 = 0
        /// Who takes what arrives from the event loop (`deliver`), and whether it was told the end.
        var pusher: Pusher?
        var endPushed = false
    }

    let channel: any Channel
    let readAhead: Int
    let inbox = Mutex(Inbox())
    /// The last posted write: a close waits for it.
    private let lastPosted = Mutex<EventLoopFuture<Void>?>(nil)

    init(channel: any Channel, readAhead: Int) {
        self.channel = channel
        self.readAhead = readAhead
    }

    /// The channel's event loop: it delivers what is read and runs every post.
    var executor: (any SerialExecutor)? { channel.eventLoop.executor }

    func write(_ bytes: [UInt8]) async throws {
        let channel = channel
        try await Self.cancellable(channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)))
    }

    func read() async throws -> [UInt8]? {
        let id = inbox.withLock { inbox in
            inbox.nextReaderID += 1
            return inbox.nextReaderID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                let ready: Result<[UInt8]?, any Error>? = inbox.withLock { inbox in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let taken = take(&inbox) { return taken }
                    inbox.reader = (id, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let reader = inbox.withLock { inbox -> CheckedContinuation<[UInt8]?, any Error>? in
                guard let reader = inbox.reader, reader.id == id else { return nil }
                inbox.reader = nil
                return reader.continuation
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    /// Hands `bytes` to the channel from the caller's thread, behind what was posted before (the
    /// caller posts one at a time, in order, and NIO runs writes in the order handed over);
    /// nothing waits for it to go. A continuation stream
    /// posts each sealed frame so: awaiting every write moved each key's change through four
    /// more thread switches on its way out.
    ///
    /// Always through the event loop's queue, also from the event loop itself: a write made there
    /// at once would pass frames posted before it from another thread and still queued (the
    /// receiver then cannot open them: each frame's nonce counts), and would run inside the
    /// caller's lock.
    func post(_ bytes: [UInt8]) -> Bool {
        let channel = channel
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let buffer = channel.allocator.buffer(bytes: bytes)
        channel.eventLoop.execute { channel.writeAndFlush(buffer, promise: promise) }
        lastPosted.withLock { $0 = promise.futureResult }
        return true
    }

    func close() async {
        if let last = lastPosted.withLock({ $0 }) { _ = try? await last.get() }
        try? await channel.close()
    }

    // MARK: - From the event loop

    private typealias Reader = CheckedContinuation<[UInt8]?, any Error>

    /// Bytes read from the socket; says whether to keep reading.
    func received(_ buffer: ByteBuffer) -> Bool {
        var woken: (Reader, Result<[UInt8]?, any Error>)?
        var pushes = false
        let more = inbox.withLock { inbox -> Bool in
            inbox.bytes.append(contentsOf: buffer.readableBytesView)
            if inbox.pusher != nil {
                pushes = true
                return true
            }
            let more = inbox.bytes.count < readAhead
            if !more { inbox.paused = true }
            if let reader = inbox.reader, let taken = take(&inbox) {
                inbox.reader = nil
                woken = (reader.continuation, taken)
            }
            return more
        }
        if let (reader, taken) = woken { reader.resume(with: taken) }
        if pushes { pushWaiting() }
        return more
    }

    /// The stream ended, cleanly or with `error`.
    func ended(_ error: (any Error)?) {
        var woken: (Reader, Result<[UInt8]?, any Error>)?
        inbox.withLock { inbox in
            inbox.ended = true
            if inbox.error == nil, let error { inbox.error = StreamFailure.connectionLost(MulticastError.reason(for: error)) }
            if let reader = inbox.reader, let taken = take(&inbox) {
                inbox.reader = nil
                woken = (reader.continuation, taken)
            }
        }
        if let (reader, taken) = woken { reader.resume(with: taken) }
        // On a later turn of the event loop, not now: a connection ends inside a write the stream
        // posted while it held its lock (a flush that fails closes the channel at once), and
        // handing it the end from there would take that lock again.
        let channel = channel
        channel.eventLoop.execute { self.pushWaiting() }
    }

    /// Everything waiting, the end, or nil when the reader has to wait. Resumes the socket's
    /// reads when they were paused for the fetcher.
    private func take(_ inbox: inout Inbox) -> Result<[UInt8]?, any Error>? {
        if !inbox.bytes.isEmpty {
            let bytes = inbox.bytes
            inbox.bytes = inbox.handedOut
            inbox.handedOut = bytes
            // Keeps the storage when the reader no longer holds it; else starts a new one.
            inbox.bytes.removeAll(keepingCapacity: true)
            inbox.bytes.reserveCapacity(min(bytes.count, readAhead))
            if inbox.paused {
                inbox.paused = false
                let channel = channel
                channel.eventLoop.execute { channel.read() }
            }
            return .success(bytes)
        }
        if inbox.ended { return inbox.error.map { .failure($0) } ?? .success(nil) }
        return nil
    }

    /// Awaits `future`; a cancelled task stops waiting at once, and a value that comes after goes to `late`.
    static func cancellable<Value: Sendable>(
        _ future: EventLoopFuture<Value>, late: @escaping @Sendable (Value) -> Void = { _ in }
    ) async throws -> Value {
        let waiting = Mutex<CheckedContinuation<Value, any Error>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let cancelled = waiting.withLock { waiting in
                    if Task.isCancelled { return true }
                    waiting = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                    future.whenSuccess { late($0) }
                    return
                }
                future.whenComplete { result in
                    if let continuation = waiting.withLock({ $0.take() }) {
                        continuation.resume(with: result)
                    } else if case .success(let value) = result {
                        late(value)
                    }
                }
            }
        } onCancel: {
            waiting.withLock { $0.take() }?.resume(throwing: CancellationError())
        }
    }
}

/// Hands what the socket reads to its `TCPStreamConnection`, and reads on only while it has room.
final class StreamReadHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let connection: TCPStreamConnection
    private var wantsMore = true

    init(connection: TCPStreamConnection) { self.connection = connection }

    func channelActive(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        wantsMore = connection.received(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if wantsMore { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.ended(nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.ended(error)
        context.close(promise: nil)
    }
}
