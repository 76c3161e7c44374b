import Handoff
import NIOCore
import NIOPosix
import Synchronization
import HandoffWire

/// Serves a `StateShelf` over the state stream: the TCP listener a source runs while it
/// publishes OFFERs (docs/PROTOCOL.md section 10).
///
/// Each accepted connection hosts a `StateServerConnection`. At most 8 are served at once; one
/// more is closed at accept, before any byte. A connection must finish the handshake and its GET
/// within 1 s of being accepted, and is closed when its writes make no progress for 10 s.
public final class TCPStateServer: Sendable {
    /// The server's limits; the defaults are the page's.
    public struct Limits: Equatable, Sendable {
        public var maximumConnections = 8
        /// From the accepted connection to the answered GET.
        public var handshakeTimeout: TimeAmount = .seconds(1)
        /// A connection whose writes wait this long without one completing is closed.
        public var writeStallTimeout: TimeAmount = .seconds(10)

        public init() {}
    }

    /// How connections ended, counted.
    public struct Statistics: Equatable, Sendable {
        /// Connections served (not refused).
        public var accepted = 0
        /// Connections closed at accept because the server was full.
        public var refused = 0
        /// Connections that sent the whole state they asked for.
        public var finished = 0
        /// Connections closed for not finishing the handshake and GET in time.
        public var handshakeTimeouts = 0
        /// Connections closed because the client stopped reading.
        public var writeStalls = 0
        /// Connections closed by the protocol: a bad hello or proof, a bad frame, an ERROR sent.
        public var refusedByProtocol = 0
    }

    /// Why the server ended a connection.
    enum CloseReason: Equatable, Sendable {
        case handshakeTimeout, writeStalled, finished
        case `protocol`(StateServerConnection.CloseReason)
    }

    /// The count of open connections and the statistics, shared with every connection's handler.
    final class Events: Sendable {
        private struct Tally {
            var open = 0
            var statistics = Statistics()
            var channels: [ObjectIdentifier: any Channel] = [:]
        }

        private let tally = Mutex(Tally())
        let limit: Int

        init(limit: Int) { self.limit = limit }

        /// Takes a place for `channel`, or says there is none.
        func enter(_ channel: any Channel) -> Bool {
            tally.withLock { tally in
                guard tally.open < limit else {
                    tally.statistics.refused += 1
                    return false
                }
                tally.open += 1
                tally.statistics.accepted += 1
                tally.channels[ObjectIdentifier(channel)] = channel
                return true
            }
        }

        func leave(_ channel: any Channel) {
            tally.withLock { tally in
                guard tally.channels.removeValue(forKey: ObjectIdentifier(channel)) != nil else { return }
                tally.open -= 1
            }
        }

        /// A connection that became a continuation stream no longer takes a fetch's place.
        func release(_ channel: any Channel) { leave(channel) }

        var channels: [any Channel] { tally.withLock { Array($0.channels.values) } }

        func closed(_ reason: CloseReason) {
            tally.withLock { tally in
                switch reason {
                case .handshakeTimeout: tally.statistics.handshakeTimeouts += 1
                case .writeStalled: tally.statistics.writeStalls += 1
                case .finished: tally.statistics.finished += 1
                case .protocol(.clientClosed): break
                case .protocol: tally.statistics.refusedByProtocol += 1
                }
            }
        }

        var open: Int { tally.withLock { $0.open } }
        var statistics: Statistics { tally.withLock { $0.statistics } }
    }

    /// The connection was refused at accept because the server already serves its maximum.
    struct Full: Error {}

    /// The TCP port the server listens on (the OFFER's `port`).
    public let port: Int
    private let channel: any Channel
    private let events: Events

    private init(port: Int, channel: any Channel, events: Events) {
        self.port = port
        self.channel = channel
        self.events = events
    }

    /// Connections open now.
    public var openConnections: Int { events.open }
    /// How connections ended so far.
    public var statistics: Statistics { events.statistics }

    /// Listens on `host:port` (all addresses, and an ephemeral port, by default) and serves
    /// `shelf` as `identity` to the devices `trust` lists. Runs on `group`'s threads.
    public static func start(
        shelf: StateShelf, identity: StreamIdentity, trust: StreamTrust, host: String = "0.0.0.0", port: Int = 0, limits: Limits = Limits(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(StateServerError) -> TCPStateServer {
        let address: SocketAddress
        do {
            address = try SocketAddress(ipAddress: host, port: port)
        } catch {
            throw .invalidAddress(host: host, port: port)
        }
        let events = Events(limit: limits.maximumConnections)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 64)
            .childChannelOption(.writeBufferWaterMark, value: ChannelOptions.Types.WriteBufferWaterMark(low: 512 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in
                // Full: a failed initializer closes the accepted socket before anything is written.
                guard events.enter(channel) else { return channel.eventLoop.makeFailedFuture(Full()) }
                channel.closeFuture.whenComplete { _ in events.leave(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    let machine = StateServerConnection(identity: identity, trust: trust, shelf: shelf)
                    try channel.pipeline.syncOperations.addHandler(
                        StateServerHandler(machine: machine, limits: limits, events: events, door: shelf.continuationDoor))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(to: address).get()
        } catch {
            throw .bindFailed(host: host, port: port, reason: MulticastError.reason(for: error))
        }
        guard let bound = channel.localAddress?.port else {
            try? await channel.close()
            throw .bindFailed(host: host, port: port, reason: "the socket has no local port")
        }
        return TCPStateServer(port: bound, channel: channel, events: events)
    }

    /// Stops listening and closes every open connection (their clients see a drop).
    public func close() async {
        try? await channel.close()
        await dropConnections()
    }

    /// Closes every open connection and keeps listening, as a network that dropped them would.
    func dropConnections() async {
        for connection in events.channels { try? await connection.close() }
    }
}

/// Why the state stream server could not start.
public enum StateServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidAddress(host: String, port: Int)
    case bindFailed(host: String, port: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidAddress(let host, let port):
            "\(host):\(port) is not an IP address and port to listen on for the state stream."
        case .bindFailed(let host, let port, let reason):
            port == 0
                ? "Cannot listen for the state stream on \(host): \(reason)."
                : "Cannot listen for the state stream on \(host):\(port): \(reason); choose another --stream-port, or 0 for any free port."
        }
    }
}
