import Handoff
import NIOCore
import NIOPosix

/// Carries datagrams to and from every peer in an IPv4 multicast group, on SwiftNIO.
///
/// Each transport owns one event-loop thread; its socket is bound to `0.0.0.0:port` with
/// `SO_REUSEADDR`, so several peers on one host share the port, and joins the group on
/// the configured interface (or the kernel's default). Call `close()` when done: it
/// closes the socket and stops the thread.
public final class MulticastTransport: ActivityTransport {
    /// The most bytes one IPv4 UDP datagram can carry (65,535 − 20 IP − 8 UDP).
    public static let maximumDatagramSize = 65_507
    /// The receive buffer for one datagram: NIO's default (2048) would cut longer ones silently.
    static let receiveBufferSize = 65_536
    /// The socket's receive buffer asked of the kernel.
    static let socketReceiveBufferSize = 1 << 20

    /// The configuration this transport runs with.
    public let configuration: MulticastConfiguration
    /// The interface joined and sent on: the named one, or the kernel's choice when it could be found.
    public let interfaceName: String?
    /// Where this transport sends and listens, e.g. `239.255.77.88:47788 on eth0`, and
    /// `+ unicast 10.77.0.12:47788` when it has unicast peers.
    public let endpointDescription: String

    private let channel: any Channel
    private let eventLoopGroup: MultiThreadedEventLoopGroup
    private let groupAddress: SocketAddress
    private let peerAddresses: [(address: SocketAddress, text: String)]
    private let state: TransportState

    private init(
        configuration: MulticastConfiguration,
        interfaceName: String?,
        channel: any Channel,
        eventLoopGroup: MultiThreadedEventLoopGroup,
        groupAddress: SocketAddress,
        peerAddresses: [(address: SocketAddress, text: String)],
        state: TransportState
    ) {
        self.configuration = configuration
        self.interfaceName = interfaceName
        self.endpointDescription =
            "\(configuration.group):\(configuration.port) on \(interfaceName ?? "the default interface")"
            + Self.unicastDescription(configuration.peers)
        self.peerAddresses = peerAddresses
        self.channel = channel
        self.eventLoopGroup = eventLoopGroup
        self.groupAddress = groupAddress
        self.state = state
    }

    /// Counts of datagrams received, sent and discarded so far.
    public var statistics: MulticastStatistics { state.statistics }
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
        let peerAddresses: [(address: SocketAddress, text: String)]
        do {
            configuration = try requested.validated()
        } catch {
            throw .invalidConfiguration(error)
        }
        do {
            peerAddresses = try configuration.peers.map {
                (try SocketAddress(ipAddress: $0.address, port: $0.port), $0.description)
            }
        } catch {
            throw .invalidConfiguration(.invalidPeer(value: configuration.peers.map(\.description).joined(separator: ", ")))
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

            let state = TransportState()
            let channel = try await bind(on: loop, to: anyAddress, state: state)
            do throws(MulticastError) {
                try await configure(channel, configuration: configuration, choice: choice, group: groupAddress)
            } catch {
                try? await channel.close()
                throw error
            }
            return MulticastTransport(
                configuration: configuration,
                interfaceName: choice.name,
                channel: channel,
                eventLoopGroup: eventLoopGroup,
                groupAddress: groupAddress,
                peerAddresses: peerAddresses,
                state: state
            )
        } catch {
            try? await eventLoopGroup.shutdownGracefully()
            throw error
        }
    }

    /// Hands every datagram read from now on, and every failed send, to `handler`, on the
    /// transport's event-loop thread as it happens. Datagrams read before this are dropped
    /// (and counted as discarded).
    public func start(_ handler: TransportHandler) {
        state.install(handler)
    }

    /// Writes one datagram to the group on the event-loop thread without waiting for it;
    /// datagrams sent from one thread go out in order, and before a later `close()`. More than
    /// 65,507 bytes is refused; failures reach the handler's `sendFailed`.
    public func send(_ bytes: [UInt8]) {
        guard bytes.count <= Self.maximumDatagramSize else {
            state.handler?.sendFailed(.datagramTooLarge(bytes: bytes.count, limit: Self.maximumDatagramSize))
            return
        }
        guard !state.isClosed else { return }
        let envelope = AddressedEnvelope(remoteAddress: groupAddress, data: channel.allocator.buffer(bytes: bytes))
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let state = state
        let destination = "\(configuration.group):\(configuration.port)"
        promise.futureResult.whenComplete { result in
            switch result {
            case .success:
                state.sent()
            case .failure(ChannelError.ioOnClosedChannel):
                state.handler?.sendFailed(.closed)
            case .failure(let error):
                state.handler?.sendFailed(.sendFailed(destination: destination, reason: MulticastError.reason(for: error)))
            }
        }
        channel.writeAndFlush(envelope, promise: promise)
        // The same bytes to each unicast peer, from the same socket: the same source address and port.
        for peer in peerAddresses {
            let copy = AddressedEnvelope(remoteAddress: peer.address, data: envelope.data)
            let promise = channel.eventLoop.makePromise(of: Void.self)
            let destination = peer.text
            promise.futureResult.whenComplete { result in
                switch result {
                case .success:
                    state.sentUnicast()
                case .failure(ChannelError.ioOnClosedChannel):
                    state.handler?.sendFailed(.closed)
                case .failure(let error):
                    state.handler?.sendFailed(
                        .sendFailed(destination: destination, reason: MulticastError.reason(for: error)))
                }
            }
            channel.writeAndFlush(copy, promise: promise)
        }
    }

    /// ` + unicast 10.77.0.12:47788, 10.77.0.13:47788`, or nothing without unicast peers.
    static func unicastDescription(_ peers: [UnicastPeer]) -> String {
        peers.isEmpty ? "" : " + unicast " + peers.map(\.description).joined(separator: ", ")
    }

    /// Closes the socket and stops the event-loop thread; later calls do nothing.
    public func close() async {
        guard state.close() else { return }
        try? await channel.close()
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
        state: TransportState
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
                                DatagramInboundHandler(state: state)
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

extension MulticastTransport {
    /// The interface a transport started with `configuration` would join and send on, worked out
    /// on the calling thread as `start` does on its own: the named one (checked as `start`
    /// checks it), else the one the kernel's route to the group uses, when that can be found.
    /// `baton doctor` reports it without binding the port.
    public static func interfaceName(for configuration: MulticastConfiguration) throws(MulticastError) -> String? {
        let groupAddress: SocketAddress
        do {
            groupAddress = try SocketAddress(ipAddress: configuration.group, port: configuration.port)
        } catch {
            throw .invalidConfiguration(.notMulticastGroup(source: "group", value: configuration.group))
        }
        return try InterfaceChoice.resolve(named: configuration.interface, group: groupAddress).name
    }
}
