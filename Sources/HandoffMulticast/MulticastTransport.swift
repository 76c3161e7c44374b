import Handoff
import NIOCore
import NIOPosix

/// Carries datagrams to and from every peer in an IPv4 multicast group, on SwiftNIO.
///
/// Each transport owns one event-loop thread; its socket is bound to `0.0.0.0:port` with
/// `SO_REUSEADDR`, so several peers on one host share the port, and joins the group on
/// the configured interface (or the kernel's default). Call `close()` when done: it
/// closes the socket, finishes `incoming` and stops the thread.
public final class MulticastTransport: ActivityTransport {
    /// The most bytes one IPv4 UDP datagram can carry (65,535 − 20 IP − 8 UDP).
    public static let maximumDatagramSize = 65_507
    /// The receive buffer for one datagram: NIO's default (2048) would cut longer ones silently.
    static let receiveBufferSize = 65_536
    /// Datagrams kept for a slow reader of `incoming`; beyond this the oldest are discarded.
    static let incomingBufferLimit = 1024
    /// The socket's receive buffer asked of the kernel.
    static let socketReceiveBufferSize = 1 << 20

    /// The configuration this transport runs with.
    public let configuration: MulticastConfiguration
    /// The interface joined and sent on: the named one, or the kernel's choice when it could be found.
    public let interfaceName: String?
    /// Where this transport sends and listens, e.g. `239.255.77.88:47788 on eth0`.
    public let endpointDescription: String
    /// Every datagram that arrives, until `close()`; iterate it from one place only.
    public let incoming: AsyncStream<ReceivedDatagram>

    private let channel: any Channel
    private let eventLoopGroup: MultiThreadedEventLoopGroup
    private let groupAddress: SocketAddress
    private let continuation: AsyncStream<ReceivedDatagram>.Continuation
    private let counts: LockedValue<MulticastStatistics>
    private let receiver: LockedValue<DatagramInboundHandler.Receiver?>
    private let isClosed = LockedValue(false)

    private init(
        configuration: MulticastConfiguration,
        interfaceName: String?,
        channel: any Channel,
        eventLoopGroup: MultiThreadedEventLoopGroup,
        groupAddress: SocketAddress,
        incoming: AsyncStream<ReceivedDatagram>,
        continuation: AsyncStream<ReceivedDatagram>.Continuation,
        counts: LockedValue<MulticastStatistics>,
        receiver: LockedValue<DatagramInboundHandler.Receiver?>
    ) {
        self.configuration = configuration
        self.interfaceName = interfaceName
        self.endpointDescription =
            "\(configuration.group):\(configuration.port) on \(interfaceName ?? "the default interface")"
        self.channel = channel
        self.eventLoopGroup = eventLoopGroup
        self.groupAddress = groupAddress
        self.incoming = incoming
        self.continuation = continuation
        self.counts = counts
        self.receiver = receiver
    }

    /// Counts of datagrams received, sent and discarded so far.
    public var statistics: MulticastStatistics { counts.withLock { $0 } }
    /// Datagrams read from the socket so far.
    public var receivedCount: Int { statistics.received }
    /// Datagrams sent so far.
    public var sentCount: Int { statistics.sent }

    /// Binds, joins the group and starts receiving; every failure is a `MulticastError` saying what to do.
    public static func start(_ configuration: MulticastConfiguration) async throws(MulticastError)
        -> MulticastTransport
    {
        try await start(configuration, preparingThread: nil)
    }

    /// Starts a transport whose event-loop thread first runs `preparingThread`.
    ///
    /// Everything that depends on the thread's network namespace — listing devices, the
    /// route to the group, creating the socket — happens on that one thread, after
    /// `preparingThread`. Tests use it to `setns()` the thread into a lab namespace; the
    /// socket then lives in the lab for good, whichever thread uses it later.
    static func start(
        _ requested: MulticastConfiguration,
        preparingThread: (@Sendable () throws -> Void)?
    ) async throws(MulticastError) -> MulticastTransport {
        let configuration: MulticastConfiguration
        let groupAddress: SocketAddress
        let anyAddress: SocketAddress
        do {
            configuration = try requested.validated()
        } catch {
            throw .invalidConfiguration(error)
        }
        do {
            groupAddress = try SocketAddress(ipAddress: configuration.group, port: configuration.port)
            anyAddress = try SocketAddress(ipAddress: "0.0.0.0", port: configuration.port)
        } catch {
            throw .invalidConfiguration(.notMulticastGroup(source: "group", value: configuration.group))
        }

        let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = eventLoopGroup.next()
        do throws(MulticastError) {
            let choice = try await onLoop(loop) { () throws(MulticastError) -> InterfaceChoice in
                if let preparingThread {
                    do {
                        try preparingThread()
                    } catch {
                        throw .startFailed(reason: "preparing the event-loop thread failed: \(error)")
                    }
                }
                return try InterfaceChoice.resolve(named: configuration.interface, group: groupAddress)
            }

            let counts = LockedValue(MulticastStatistics())
            let receiver = LockedValue<DatagramInboundHandler.Receiver?>(nil)
            let (incoming, continuation) = AsyncStream.makeStream(
                of: ReceivedDatagram.self,
                bufferingPolicy: .bufferingNewest(incomingBufferLimit)
            )
            let channel = try await bind(
                on: loop, to: anyAddress, continuation: continuation, counts: counts, receiver: receiver)
            do throws(MulticastError) {
                try await configure(channel, configuration: configuration, choice: choice, group: groupAddress)
            } catch {
                try? await channel.close()
                continuation.finish()
                throw error
            }
            channel.closeFuture.whenComplete { _ in continuation.finish() }
            return MulticastTransport(
                configuration: configuration,
                interfaceName: choice.name,
                channel: channel,
                eventLoopGroup: eventLoopGroup,
                groupAddress: groupAddress,
                incoming: incoming,
                continuation: continuation,
                counts: counts,
                receiver: receiver
            )
        } catch {
            try? await eventLoopGroup.shutdownGracefully()
            throw error
        }
    }

    /// Hands every datagram to `receiver` on the transport's event-loop thread, as it is read,
    /// instead of to `incoming`: no hop to another thread for what the receiver drops at once.
    public func deliverIncoming(to receiver: @escaping @Sendable (ReceivedDatagram) -> Void) {
        let box = DatagramInboundHandler.Receiver(receiver)
        self.receiver.withLock { $0 = box }
    }

    /// Sends one datagram to the group; more than 65,507 bytes is refused.
    public func send(_ bytes: [UInt8]) async throws(MulticastError) {
        guard bytes.count <= Self.maximumDatagramSize else {
            throw .datagramTooLarge(bytes: bytes.count, limit: Self.maximumDatagramSize)
        }
        guard !isClosed.withLock({ $0 }) else { throw .closed }
        let envelope = AddressedEnvelope(remoteAddress: groupAddress, data: channel.allocator.buffer(bytes: bytes))
        do {
            try await channel.writeAndFlush(envelope).get()
        } catch ChannelError.ioOnClosedChannel {
            throw .closed
        } catch {
            throw .sendFailed(
                destination: "\(configuration.group):\(configuration.port)",
                reason: MulticastError.reason(for: error)
            )
        }
        counts.withLock { $0.sent += 1 }
    }

    /// Writes one datagram on the event-loop thread without waiting for it; datagrams posted
    /// from one thread go out in order, and before a later `close()`.
    public func post(_ bytes: [UInt8], failed: @escaping @Sendable (String) -> Void) -> Bool {
        guard bytes.count <= Self.maximumDatagramSize else {
            failed(MulticastError.datagramTooLarge(bytes: bytes.count, limit: Self.maximumDatagramSize).description)
            return true
        }
        guard !isClosed.withLock({ $0 }) else {
            failed(MulticastError.closed.description)
            return true
        }
        let envelope = AddressedEnvelope(remoteAddress: groupAddress, data: channel.allocator.buffer(bytes: bytes))
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let counts = counts
        let destination = "\(configuration.group):\(configuration.port)"
        promise.futureResult.whenComplete { result in
            switch result {
            case .success:
                counts.withLock { $0.sent += 1 }
            case .failure(ChannelError.ioOnClosedChannel):
                failed(MulticastError.closed.description)
            case .failure(let error):
                failed(MulticastError.sendFailed(destination: destination, reason: MulticastError.reason(for: error)).description)
            }
        }
        channel.writeAndFlush(envelope, promise: promise)
        return true
    }

    /// Closes the socket, finishes `incoming` and stops the event-loop thread; later calls do nothing.
    public func close() async {
        let wasOpen = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard wasOpen else { return }
        try? await channel.close()
        continuation.finish()
        try? await eventLoopGroup.shutdownGracefully()
    }

    // MARK: - Start-up steps

    /// Runs `body` on the transport's thread, keeping its typed error.
    private static func onLoop<Value: Sendable>(
        _ loop: any EventLoop,
        _ body: @escaping @Sendable () throws(MulticastError) -> Value
    ) async throws(MulticastError) -> Value {
        do {
            return try await loop.submit { try body() }.get()
        } catch let error as MulticastError {
            throw error
        } catch {
            throw .startFailed(reason: MulticastError.reason(for: error))
        }
    }

    /// Creates and binds the socket on `loop`'s thread, so it lives in that thread's network namespace.
    private static func bind(
        on loop: any EventLoop,
        to address: SocketAddress,
        continuation: AsyncStream<ReceivedDatagram>.Continuation,
        counts: LockedValue<MulticastStatistics>,
        receiver: LockedValue<DatagramInboundHandler.Receiver?>
    ) async throws(MulticastError) -> any Channel {
        do {
            return try await loop.flatSubmit {
                DatagramBootstrap(group: loop)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    // Room for a burst while the thread is busy (the kernel caps it at net.core.rmem_max).
                    .channelOption(.socketOption(.so_rcvbuf), value: socketReceiveBufferSize)
                    .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: receiveBufferSize))
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                DatagramInboundHandler(continuation: continuation, statistics: counts, receiver: receiver)
                            )
                        }
                    }
                    .bind(to: address)
            }.get()
        } catch {
            throw .bindFailed(port: address.port ?? 0, reason: MulticastError.reason(for: error))
        }
    }

    /// Sets the multicast options and joins the group.
    private static func configure(
        _ channel: any Channel,
        configuration: MulticastConfiguration,
        choice: InterfaceChoice,
        group: SocketAddress
    ) async throws(MulticastError) {
        guard let options = channel as? any SocketOptionProvider,
            let multicast = channel as? any MulticastChannel
        else {
            throw .startFailed(reason: "the datagram channel offers no multicast options")
        }
        #if os(Linux)
        // Without this Linux hands the socket every group joined by anyone on the host on this port.
        let multicastAll = ChannelOptions.Types.SocketOption(level: .ip, name: .init(rawValue: IP_MULTICAST_ALL))
        try await setOption("IP_MULTICAST_ALL") { channel.setOption(multicastAll, value: 0) }
        #endif
        try await setOption("IP_MULTICAST_TTL") { options.setIPMulticastTTL(CUnsignedChar(configuration.ttl)) }
        try await setOption("IP_MULTICAST_LOOP") { options.setIPMulticastLoop(configuration.loopback ? 1 : 0) }
        if let address = choice.address {
            try await setOption("IP_MULTICAST_IF") { options.setIPMulticastIF(address) }
        }
        do {
            try await multicast.joinGroup(group, device: choice.device).get()
        } catch {
            throw .joinFailed(
                group: configuration.group,
                interface: configuration.interface,
                reason: MulticastError.reason(for: error)
            )
        }
    }

    private static func setOption(
        _ name: String,
        _ apply: () -> EventLoopFuture<Void>
    ) async throws(MulticastError) {
        do {
            try await apply().get()
        } catch {
            throw .socketOptionFailed(option: name, reason: MulticastError.reason(for: error))
        }
    }
}
