import Handoff
import Synchronization
import HandoffWire

/// Opens state-stream connections through the relay, for sources that no TCP connection
/// reaches: the host is `relay:` and the source's sender topic, as the relay gives it for the
/// source of every datagram (docs/PROTOCOL.md section 16, "The state stream through the relay").
///
/// Each connection has a fresh connection id and two topics: the client publishes its bytes
/// to `<root>/s/<server>/<id>/c` and reads the server's from `.../s`, both QoS 1, in messages of
/// at most 32 KiB; an empty message ends that direction. The port is not used: the relay reaches
/// the source's stream server by its sender topic.
public struct RelayStreamDialer: StreamDialer {
    /// What starts a relay host: `relay:0123456789abcdef`.
    public static let hostPrefix = "relay:"

    let transport: RelayTransport

    public func connect(host: String, port: Int) async throws -> any StreamConnection {
        guard host.hasPrefix(Self.hostPrefix),
            RelayTopics.isTopicID(host.dropFirst(Self.hostPrefix.count), length: 16)
        else {
            throw StreamFailure.connectionLost("\(PeerText.visible(host)) is not a relay address (relay: and 16 hex digits)")
        }
        let server = String(host.dropFirst(Self.hostPrefix.count))
        guard transport.client.isConnected else {
            throw StreamFailure.connectionLost("the relay \(transport.configuration.url) is not connected")
        }
        let id = RelayTopics.randomConnectionID()
        let connection = RelayStreamConnection(
            client: transport.client, registry: transport.streams,
            outgoing: transport.topics.streamToServer(server: server, connection: id),
            incoming: transport.topics.streamToClient(server: server, connection: id))
        transport.streams.add(connection)
        // The broker takes one client's packets in order, so this subscription is in place
        // before the ClientHello that comes after it reaches the source.
        guard transport.client.subscribe(connection.incoming, qos: 1) else {
            transport.streams.remove(connection.incoming)
            throw StreamFailure.connectionLost("the relay \(transport.configuration.url) did not take the subscription")
        }
        return connection
    }
}

/// Sends `relay:` hosts to the relay's dialer and every other host to a direct one (TCP), so
/// that one `StateStreamSetup.dialer` fetches from sources heard either way.
public struct RoutingStreamDialer: StreamDialer {
    public let direct: any StreamDialer
    public let relay: (any StreamDialer)?

    public init(direct: any StreamDialer, relay: (any StreamDialer)?) {
        self.direct = direct
        self.relay = relay
    }

    public func connect(host: String, port: Int) async throws -> any StreamConnection {
        guard host.hasPrefix(RelayStreamDialer.hostPrefix) else { return try await direct.connect(host: host, port: port) }
        guard let relay else {
            throw StreamFailure.connectionLost("this source is reachable only through a relay, and this program runs without one (--relay)")
        }
        return try await relay.connect(host: host, port: port)
    }
}

/// The client connections open through one relay, by the topic they read from.
final class RelayStreamRegistry: Sendable {
    private let connections = Mutex<[String: RelayStreamConnection]>([:])

    func add(_ connection: RelayStreamConnection) {
        connections.withLock { $0[connection.incoming] = connection }
    }

    func remove(_ incoming: String) {
        _ = connections.withLock { $0.removeValue(forKey: incoming) }
    }

    /// A message on the topic a connection reads from; an empty one ends the stream. False
    /// when no connection reads that topic.
    @discardableResult
    func deliver(topic: String, payload: [UInt8]) -> Bool {
        guard let connection = connections.withLock({ $0[topic] }) else { return false }
        if payload.isEmpty {
            connection.ended(nil)
        } else {
            connection.received(payload)
        }
        return true
    }

    /// The relay's connection to the broker was lost: every stream through it drops.
    func failAll(_ reason: String) {
        let all = connections.withLock { connections in
            defer { connections = [:] }
            return Array(connections.values)
        }
        for connection in all { connection.ended(.connectionLost(reason)) }
    }
}

/// One state-stream connection through the relay, as a `StreamConnection`: a client's, or the
/// server's end of one that became a continuation stream (which reads its client's topic
/// through the server's wildcard subscription, so closing it unsubscribes nothing).
final class RelayStreamConnection: StreamConnection {
    let client: MQTTClient
    let registry: RelayStreamRegistry
    /// `.../c`: what this side writes.
    let outgoing: String
    /// `.../s`: what the source writes.
    let incoming: String
    /// Whether `incoming` was subscribed for this connection alone.
    let ownsSubscription: Bool
    private let inbox = ByteInbox(closedError: { StreamFailure.connectionLost("the connection was closed") })

    init(client: MQTTClient, registry: RelayStreamRegistry, outgoing: String, incoming: String, ownsSubscription: Bool = true) {
        self.client = client
        self.registry = registry
        self.outgoing = outgoing
        self.incoming = incoming
        self.ownsSubscription = ownsSubscription
    }

    func write(_ bytes: [UInt8]) async throws {
        if inbox.isClosed { throw StreamFailure.connectionLost("the connection is closed") }
        if let failure = inbox.failure { throw failure }
        guard client.isConnected else { throw StreamFailure.connectionLost("the relay is not connected") }
        for start in stride(from: 0, to: bytes.count, by: RelayTransport.maximumStreamMessage) {
            let chunk = bytes[start..<min(bytes.count, start + RelayTransport.maximumStreamMessage)]
            if case .failure(let error) = client.publish(outgoing, chunk, qos: 1) {
                throw StreamFailure.connectionLost("\(error)")
            }
        }
    }

    func read() async throws -> [UInt8]? {
        try await inbox.read()
    }

    func close() async {
        let (first, serverEnded) = inbox.close()
        guard first else { return }
        registry.remove(incoming)
        if ownsSubscription { client.unsubscribe(incoming) }
        // An empty message ends this direction, as a TCP FIN would; a source that ended first needs none.
        if !serverEnded, client.isConnected { client.publish(outgoing, [UInt8](), qos: 1) }
    }

    // MARK: - From the relay's thread

    func received(_ bytes: [UInt8]) {
        inbox.deliver(bytes)
    }

    func ended(_ error: StreamFailure?) {
        inbox.end(failure: error)
    }
}
