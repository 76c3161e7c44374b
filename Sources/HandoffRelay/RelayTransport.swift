import FoundationEssentials
import Handoff
import Logging
import Synchronization
import HandoffWire

/// Carries Baton's datagrams through an MQTT broker, for peers that multicast does not reach
/// (docs/PROTOCOL.md section 16). Run it beside the LAN transport in a `TransportSet`.
///
/// Every datagram goes to the broker exactly as it was sealed; the broker sees ciphertext, the
/// clear header, sizes and timing. ANNOUNCE and OFFER are kept by the broker (retained) on the
/// sender's activity topic, so a peer that connects later hears what is offered at once;
/// WITHDRAW, a clean `close()` and the last will (a peer that died) clear it. Everything else
/// goes to the group's datagram topic. With a `StateShelf` it also serves the state stream
/// through the broker, and `streamDialer` fetches through it.
public final class RelayTransport: ActivityTransport {
    /// The largest MQTT message the relay publishes for the state stream.
    public static let maximumStreamMessage = 32 * 1024

    public let configuration: RelayConfiguration
    public let topics: RelayTopics
    /// This peer's sender topic: where its current activity is kept and its stream served.
    public let senderTopic: String

    let client: MQTTClient
    let streams = RelayStreamRegistry()
    private let server: RelayStateServer?
    private let ownSender: SenderID
    private let logger: Logger

    private struct Shared {
        var handler: TransportHandler?
        var state = TransportStatus.Path.State.connecting
        var closed = false
        /// Datagrams sent while the broker was not (yet) reachable, oldest first: sent on connect.
        var waiting: [[UInt8]] = []
    }

    /// How many datagrams wait for the broker at most; older ones are dropped (repeats cover them).
    static let waitingLimit = 32

    private let shared = Mutex(Shared())

    /// A relay for the group of `groupKey`. `senderID` is the one the activity center seals
    /// with (`ActivityCenter.Configuration.senderID`): the peer's activity topic and stream
    /// server are named after it. With `shelf` (the center's `StateStreamSetup.shelf`) it serves
    /// the state stream through the broker, as `streamIdentity` to the devices `trust` lists
    /// (without them, as the one device every holder of `groupKey` is: what tests use). Nothing
    /// connects before `start`.
    public init(
        configuration: RelayConfiguration, groupKey: GroupKey, senderID: SenderID, shelf: StateShelf? = nil,
        streamIdentity: StreamIdentity? = nil, trust: StreamTrust? = nil,
        logger: Logger = Logger(label: "baton.relay", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(RelayError) {
        let topics = RelayTopics(groupKey: groupKey)
        let senderTopic = topics.senderTopic(senderID)
        // Dying without a word clears this peer's kept activity, as a WITHDRAW would.
        let will = MQTTClient.Will(topic: topics.activity(senderTopic), payload: [], qos: 1, retain: true)
        let client = try MQTTClient(configuration: configuration, will: will)
        self.configuration = configuration
        self.topics = topics
        self.senderTopic = senderTopic
        self.client = client
        self.ownSender = senderID
        self.logger = logger
        self.server = shelf.map {
            RelayStateServer(
                client: client, topics: topics, ownTopic: senderTopic,
                identity: streamIdentity ?? .sharedByGroupKey(groupKey), trust: trust ?? .sharedByGroupKey(groupKey),
                shelf: $0)
        }
    }

    /// Fetches state streams through this relay; combine it with the TCP dialer in a `RoutingStreamDialer`.
    public var streamDialer: RelayStreamDialer { RelayStreamDialer(transport: self) }

    /// How the state-stream connections through the relay ended, when it serves a shelf.
    var streamStatistics: RelayStateServer.Statistics? { server?.statistics }

    /// The stream server, when it serves a shelf (for tests).
    var stateServer: RelayStateServer? { server }

    public var endpointDescription: String { configuration.url }

    /// Why the broker, or TLS, refused the last attempt to connect (the login, a certificate);
    /// nil while connected and when the broker was not reached.
    public var refusal: RelayRefusal? { client.refusal }

    public var status: TransportStatus {
        TransportStatus(paths: [TransportStatus.Path(kind: .relay, state: shared.withLock { $0.state }, detail: configuration.url)])
    }

    public func start(_ handler: TransportHandler) {
        shared.withLock { $0.handler = handler }
        client.addSubscription(topics.datagrams, qos: 0)
        client.addSubscription(topics.activities, qos: 0)
        if let server { client.addSubscription(server.subscription, qos: 1) }
        client.start(
            MQTTClient.Handlers(
                stateChanged: { [weak self] state in self?.clientChanged(state) },
                message: { [weak self] message in self?.received(message) },
                published: { [weak self] mid in self?.server?.acknowledged(mid) }))
    }

    public func send(_ bytes: [UInt8]) {
        let (handler, closed, up) = shared.withLock { shared in
            let up = shared.state == .up
            if !up, !shared.closed {
                // While the broker is away the datagram waits: a CONTINUED or a QUERY sent just
                // before the relay came up is not repeated. The oldest give way to the newest.
                shared.waiting.append(bytes)
                if shared.waiting.count > Self.waitingLimit { shared.waiting.removeFirst() }
            }
            return (shared.handler, shared.closed, up)
        }
        if closed {
            handler?.sendFailed(.closed)
            return
        }
        guard up else { return }
        publishDatagram(bytes)
    }

    /// Publishes one datagram on its topic: ANNOUNCE and OFFER kept on the sender's activity topic,
    /// the rest on the group's datagram topic (a WITHDRAW also clears the kept one).
    private func publishDatagram(_ bytes: [UInt8]) {
        guard let sender = topics.senderTopic(ofDatagram: bytes) else { return }
        switch DatagramKind(rawValue: bytes[4]) {
        case .announce, .offer:
            publish(topics.activity(sender), bytes, retain: true)
        case .withdraw:
            publish(topics.datagrams, bytes, retain: false)
            publish(topics.activity(sender), [], retain: true)
        default:
            publish(topics.datagrams, bytes, retain: false)
        }
    }

    /// Clears this peer's kept activity, then disconnects cleanly: libmosquitto writes its
    /// packets in order, so the clearing message leaves before the DISCONNECT. The broker
    /// discards the will on a clean disconnect, which is why the clearing is sent here.
    public func close() async {
        let wasOpen = shared.withLock { shared in
            defer { shared.closed = true }
            return !shared.closed
        }
        guard wasOpen else { return }
        let client = client
        let topic = topics.activity(senderTopic)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            BackgroundWork.startThread {
                if client.isConnected { client.publish(topic, [UInt8](), qos: 0, retain: true) }
                client.stop()
                done.resume()
            }
        }
        streams.failAll("the relay was closed")
        server?.dropAll()
        changeState(.down(reason: "closed"))
    }

    private func publish(_ topic: String, _ bytes: [UInt8], retain: Bool) {
        if case .failure(let error) = client.publish(topic, bytes, qos: 0, retain: retain) {
            logger.debug("relay dropped a datagram: \(error)")
        }
    }

    // MARK: - From libmosquitto's thread

    private func clientChanged(_ state: MQTTClient.State) {
        switch state {
        case .connecting:
            changeState(.connecting)
        case .connected:
            logger.info("relay \(configuration.url) connected")
            // What waited goes out first, oldest first, and the relay is up for `send` only once
            // the queue is empty, in the same lock: a datagram sent meanwhile joins the queue
            // instead of overtaking it. (A repeat published before an older waiting ANNOUNCE would
            // leave the broker keeping the older revision, which a peer subscribing later takes
            // for the current one.)
            while true {
                let (waiting, handler, becameUp) = shared.withLock { shared -> ([[UInt8]], TransportHandler?, Bool) in
                    guard shared.waiting.isEmpty else {
                        defer { shared.waiting = [] }
                        return (shared.waiting, nil, false)
                    }
                    let changed = shared.state != .up
                    shared.state = .up
                    return ([], changed ? shared.handler : nil, true)
                }
                guard !becameUp else {
                    if let handler { report(.up, to: handler) }
                    break
                }
                for bytes in waiting { publishDatagram(bytes) }
            }
        case .lost(let reason):
            logger.warning("relay \(configuration.url) unavailable: \(reason)")
            streams.failAll("the relay connection was lost (\(reason))")
            server?.dropAll()
            changeState(.down(reason: reason))
        case .stopped:
            break
        }
    }

    private func changeState(_ state: TransportStatus.Path.State) {
        let handler: TransportHandler? = shared.withLock { shared in
            guard shared.state != state else { return nil }
            shared.state = state
            return shared.handler
        }
        guard let handler else { return }
        report(state, to: handler)
    }

    /// Tells `handler` the relay path's new state.
    private func report(_ state: TransportStatus.Path.State, to handler: TransportHandler) {
        handler.statusChanged(TransportStatus(paths: [TransportStatus.Path(kind: .relay, state: state, detail: configuration.url)]))
    }

    private func received(_ message: MQTTClient.Message) {
        switch topics.parse(message.topic) {
        case .datagrams?, .activity?:
            // An empty message is a cleared activity; a peer's own datagrams come back to it.
            guard let sender = topics.senderTopic(ofDatagram: message.payload),
                RelayTopics.senderID(ofDatagram: message.payload) != ownSender,
                let handler = shared.withLock({ $0.closed ? nil : $0.handler })
            else { return }
            _ = handler.deliver(
                ReceivedDatagram(bytes: message.payload, source: RelayStreamDialer.hostPrefix + sender, path: .relay))
        case .streamToServer(let server, let connection)? where server == senderTopic:
            self.server?.received(connection: connection, payload: message.payload)
        case .streamToClient?:
            streams.deliver(topic: message.topic, payload: message.payload)
        default:
            break
        }
    }
}
