import Handoff
import NIOCore
import NIOPosix

/// Carries datagrams to and from every peer in an IPv4 multicast group, and to unicast peers,
/// on SwiftNIO.
///
/// Each transport owns one event-loop thread and two sockets on the Baton port (see
/// `DatagramPaths`): one receives and sends unicast, one sends to the group. Multicast is one
/// path among others: when it cannot work (no MULTICAST flag, no route, a firewall), the
/// transport still starts and runs on unicast, says so in `status`, and sets multicast up again
/// when the interfaces change. Call `close()` when done: it closes the sockets and stops the thread.
public final class MulticastTransport: ActivityTransport {
    /// The most bytes one IPv4 UDP datagram can carry (65,535 − 20 IP − 8 UDP).
    public static let maximumDatagramSize = 65_507
    /// The receive buffer for one datagram: NIO's default (2048) would cut longer ones silently.
    static let receiveBufferSize = 65_536
    /// The socket's receive buffer asked of the kernel.
    static let socketReceiveBufferSize = 1 << 20

    /// The configuration this transport runs with.
    public let configuration: MulticastConfiguration

    private let eventLoopGroup: MultiThreadedEventLoopGroup
    private let paths: DatagramPaths
    private let state: TransportState

    private init(
        configuration: MulticastConfiguration, eventLoopGroup: MultiThreadedEventLoopGroup, paths: DatagramPaths,
        state: TransportState
    ) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.paths = paths
        self.state = state
    }

    /// The interface joined and sent on: the named one, or the kernel's choice when it could be
    /// found. It follows the interfaces as they change.
    public var interfaceName: String? { state.interfaceName }

    /// Where this transport sends and listens, e.g. `239.255.77.88:47788 on eth0`, and
    /// `+ unicast 10.77.0.12:47788` when it has listed unicast peers.
    public var endpointDescription: String {
        "\(configuration.group):\(configuration.port) on \(interfaceName ?? configuration.interface ?? "the default interface")"
            + Self.unicastDescription(configuration.peers)
    }

    /// Its paths: multicast (up, or unavailable and why) and unicast (listed and learnt peers).
    public var status: TransportStatus { state.status }

    /// Counts of datagrams received, sent and discarded so far.
    public var statistics: MulticastStatistics { state.statistics }
    /// Datagrams read from the socket so far.
    public var receivedCount: Int { statistics.received }
    /// Datagrams sent so far.
    public var sentCount: Int { statistics.sent }

    /// Binds and starts receiving, joining the group when it can. Fails only on what no network
    /// change can fix (a bad configuration, an interface name that does not exist, the port held
    /// by another program), with a `MulticastError` saying what to do.
    public static func start(_ configuration: MulticastConfiguration) async throws(MulticastError)
        -> MulticastTransport
    {
        try await start(configuration, preparingThread: nil)
    }

    /// Starts a transport whose event-loop thread first runs `preparingThread`.
    ///
    /// Everything that depends on the thread's network namespace — listing devices, the
    /// route to the group, creating the sockets, watching the interfaces — happens on that one
    /// thread, after `preparingThread`. Tests use it to `setns()` the thread into a lab
    /// namespace; the sockets then live in the lab for good, whichever thread uses them later.
    static func start(
        _ requested: MulticastConfiguration,
        preparingThread: (@Sendable () throws -> Void)?,
        resolver: @escaping UnicastPeers.Resolver = UnicastPeers.resolveIPv4,
        resolveInterval: TimeAmount = .seconds(Int64(UnicastPeers.retryInterval))
    ) async throws(MulticastError) -> MulticastTransport {
        let configuration: MulticastConfiguration
        let groupAddress: SocketAddress
        let listed: [(key: String, address: SocketAddress)]
        do {
            configuration = try requested.validated()
        } catch {
            throw .invalidConfiguration(error)
        }
        do {
            listed = try configuration.peers.map {
                ($0.description, try SocketAddress(ipAddress: $0.address, port: $0.port))
            }
        } catch {
            throw .invalidConfiguration(.invalidPeer(value: configuration.peers.map(\.description).joined(separator: ", ")))
        }
        do {
            groupAddress = try SocketAddress(ipAddress: configuration.group, port: configuration.port)
        } catch {
            throw .invalidConfiguration(.notMulticastGroup(source: "group", value: configuration.group))
        }

        let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = eventLoopGroup.next()
        let state = TransportState()
        let paths = DatagramPaths(
            loop: loop, configuration: configuration, group: groupAddress, state: state, listed: listed,
            resolver: resolver, resolveInterval: resolveInterval)
        do {
            try await loop.flatSubmit { () -> EventLoopFuture<Void> in
                if let preparingThread {
                    do {
                        try preparingThread()
                    } catch {
                        return loop.makeFailedFuture(
                            MulticastError.startFailed(reason: "preparing the event-loop thread failed: \(error)"))
                    }
                }
                return paths.start()
            }.get()
        } catch {
            try? await loop.flatSubmit { paths.close() }.get()
            try? await eventLoopGroup.shutdownGracefully()
            throw error as? MulticastError ?? .startFailed(reason: MulticastError.reason(for: error))
        }
        return MulticastTransport(configuration: configuration, eventLoopGroup: eventLoopGroup, paths: paths, state: state)
    }

    /// Hands every datagram read from now on, every failed send and every change of status to
    /// `handler`, on the transport's event-loop thread as it happens. Datagrams read before this
    /// are dropped (and counted as discarded).
    public func start(_ handler: TransportHandler) {
        state.install(handler)
    }

    /// Sends one datagram to the group and to each unicast peer, on the event-loop thread,
    /// without waiting; datagrams sent from one thread go out in order, and before a later
    /// `close()`. More than 65,507 bytes is refused; failures reach the handler's `sendFailed`,
    /// and none of them stops the transport.
    public func send(_ bytes: [UInt8]) {
        guard bytes.count <= Self.maximumDatagramSize else {
            state.handler?.sendFailed(.datagramTooLarge(bytes: bytes.count, limit: Self.maximumDatagramSize))
            return
        }
        guard !state.isClosed else { return }
        let paths = paths
        paths.loop.execute { paths.send(bytes) }
    }

    /// Returns once every `send` made before it was handed to the sockets (for tests).
    func drain() async {
        try? await paths.loop.submit {}.get()
    }

    /// Whether the kernel's word on interface changes is heard now, rather than the interfaces
    /// looked at every second (for tests).
    func hearsInterfaceChanges() async -> Bool {
        let paths = paths
        return (try? await paths.loop.submit { paths.events != nil }.get()) ?? false
    }

    /// How many times the interfaces were looked at since the start (for tests).
    func interfaceLooks() async -> Int {
        let paths = paths
        return (try? await paths.loop.submit { paths.looks }.get()) ?? 0
    }

    /// Closes the subscription to interface changes, as a read error would (for tests).
    func dropInterfaceEvents() async {
        let paths = paths
        try? await paths.loop.flatSubmit { paths.events?.close() ?? paths.loop.makeSucceededVoidFuture() }.get()
    }

    /// ` + unicast 10.77.0.12:47788, 10.77.0.13:47788`, or nothing without unicast peers.
    static func unicastDescription(_ peers: [UnicastPeer]) -> String {
        peers.isEmpty ? "" : " + unicast " + peers.map(\.description).joined(separator: ", ")
    }

    /// Closes the sockets and stops the event-loop thread; later calls do nothing.
    public func close() async {
        guard state.close() else { return }
        let paths = paths
        try? await paths.loop.flatSubmit { paths.close() }.get()
        try? await eventLoopGroup.shutdownGracefully()
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
