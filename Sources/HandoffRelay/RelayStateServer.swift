import Dispatch
import Handoff
import Synchronization
import HandoffWire

/// Serves a `StateShelf` through the relay: one `StateServerConnection` per connection id that
/// writes to `<root>/s/<own sender topic>/<id>/c`, answering on `.../s`, with the TCP server's
/// limits (docs/PROTOCOL.md sections 10 and 16).
///
/// At most 8 connections at once; one more is ended (an empty message) before any byte. A
/// connection must answer its GET within 1 s of its first message. DATA frames are sealed only
/// while less than `window` bytes wait for the broker's acknowledgement, and a connection
/// whose messages go unacknowledged for 10 s is closed.
///
/// A connection whose client sent OPEN becomes a continuation stream: it leaves `links` (and
/// so the 8, the 1 s deadline and the window) and is handed, as a `RelayStreamConnection` that
/// writes to `.../s` and reads `.../c`, to the shelf's door; the stream's credit bounds it.
///
/// Everything runs on one serial queue: what arrives from libmosquitto's thread, the broker's
/// acknowledgements and the deadlines. That queue is the only place `links` is touched.
final class RelayStateServer: @unchecked Sendable {
    struct Limits: Sendable {
        var maximumConnections = 8
        var handshakeTimeout: DispatchTimeInterval = .seconds(1)
        var writeStallTimeout: DispatchTimeInterval = .seconds(10)
        /// Stream bytes published and not yet acknowledged by the broker, per connection.
        var window = 1 << 20
    }

    /// How connections ended, counted (for tests and logs).
    struct Statistics: Equatable, Sendable {
        var accepted = 0
        var refused = 0
        var finished = 0
        var handshakeTimeouts = 0
        var writeStalls = 0
        var refusedByProtocol = 0
    }

    private final class Link {
        let id: String
        let reply: String
        var machine: StateServerConnection
        var outstanding = 0
        var lastProgress = DispatchTime.now()
        var streaming = false

        init(id: String, reply: String, machine: StateServerConnection) {
            self.id = id
            self.reply = reply
            self.machine = machine
        }
    }

    private let client: MQTTClient
    private let topics: RelayTopics
    private let ownTopic: String
    private let identity: StreamIdentity
    private let trust: StreamTrust
    private let shelf: StateShelf
    private var limits: Limits
    private let queue = DispatchQueue(label: "baton.relay.state-server")
    private var links: [String: Link] = [:]
    /// Published stream messages awaiting the broker's acknowledgement: message id → (connection, bytes).
    private var unacknowledged: [Int32: (connection: String, bytes: Int)] = [:]
    /// Connections ended lately, whose late messages must not open a new one.
    private var ended: [String] = []
    /// The connections that became continuation streams, by the topic they read, and their ids.
    private let streams = RelayStreamRegistry()
    private var streamIDs: Set<String> = []
    private let counts = Mutex(Statistics())

    init(
        client: MQTTClient, topics: RelayTopics, ownTopic: String, identity: StreamIdentity, trust: StreamTrust,
        shelf: StateShelf, limits: Limits = Limits()
    ) {
        self.client = client
        self.topics = topics
        self.ownTopic = ownTopic
        self.identity = identity
        self.trust = trust
        self.shelf = shelf
        self.limits = limits
    }

    var statistics: Statistics { counts.withLock { $0 } }

    /// Connections still in their handshake, under its deadline (a continuation stream has left).
    var handshaking: Int { queue.sync { links.count } }

    /// The limits from now on: tests on a machine busy with a whole suite make the deadlines
    /// they do not test long.
    func setLimits(_ new: Limits) { queue.sync { limits = new } }

    /// The subscription that brings every connection's client bytes.
    var subscription: String { topics.streamsToServer(ownTopic) }

    // MARK: - From libmosquitto's thread

    func received(connection id: String, payload: [UInt8]) {
        queue.async { self.handle(id, payload) }
    }

    func acknowledged(_ mid: Int32) {
        queue.async { self.acknowledge(mid) }
    }

    /// The broker connection was lost: every connection through it is gone.
    func dropAll() {
        queue.async {
            self.ended.append(contentsOf: self.links.keys)
            self.ended.append(contentsOf: self.streamIDs)
            self.links = [:]
            self.streamIDs = []
            self.streams.failAll("the relay's connection to the broker was lost")
            self.unacknowledged = [:]
            self.trimEnded()
        }
    }

    // MARK: - On the queue

    private func handle(_ id: String, _ payload: [UInt8]) {
        if streamIDs.contains(id) {
            if streams.deliver(topic: topics.streamToServer(server: ownTopic, connection: id), payload: payload) { return }
            // Its stream closed since: the id is one of the ended.
            streamIDs.remove(id)
            remember(id)
            return
        }
        guard let link = links[id] else {
            guard !payload.isEmpty, !ended.contains(id) else { return }
            let reply = topics.streamToClient(server: ownTopic, connection: id)
            guard links.count < limits.maximumConnections else {
                counts.withLock { $0.refused += 1 }
                client.publish(reply, [UInt8](), qos: 1)
                return remember(id)
            }
            counts.withLock { $0.accepted += 1 }
            let link = Link(id: id, reply: reply, machine: StateServerConnection(identity: identity, trust: trust, shelf: shelf))
            links[id] = link
            let key = ObjectIdentifier(link)
            queue.asyncAfter(deadline: .now() + limits.handshakeTimeout) {
                guard let link = self.links[id], ObjectIdentifier(link) == key, !link.machine.hasAnswered else { return }
                self.counts.withLock { $0.handshakeTimeouts += 1 }
                self.close(link)
            }
            return perform(link.machine.receive(payload), link)
        }
        if payload.isEmpty {
            // The client ended its side: it holds everything, or gave up; no one reads what would follow.
            perform(link.machine.receiveEnd(), link)
            if links[id] === link { remove(link) }
        } else {
            perform(link.machine.receive(payload), link)
        }
    }

    private func perform(_ outputs: [StateServerConnection.Output], _ link: Link) {
        for output in outputs {
            guard links[link.id] === link else { return }
            switch output {
            case .write(let bytes):
                write(bytes, link)
            case .startStreaming:
                link.streaming = true
                link.lastProgress = .now()
                scheduleStallCheck(link)
                pump(link)
            case .close(let reason):
                if case .clientClosed = reason {} else { counts.withLock { $0.refusedByProtocol += 1 } }
                close(link)
            case .openStream(var opening):
                // A continuation stream from here on, apart from the fetches (section 16).
                links[link.id] = nil
                let pipe = RelayStreamConnection(
                    client: client, registry: streams, outgoing: link.reply,
                    incoming: topics.streamToServer(server: ownTopic, connection: link.id), ownsSubscription: false)
                streams.add(pipe)
                streamIDs.insert(link.id)
                if !shelf.continuationDoor.enter(opening, pipe: pipe) {
                    let refusal = opening.refusal()
                    Task { try? await pipe.write(refusal); await pipe.close() }
                }
                return
            }
        }
    }

    /// Seals DATA frames while the window has room; the broker's acknowledgements pull the rest.
    private func pump(_ link: Link) {
        guard link.streaming, links[link.id] === link else { return }
        while link.outstanding < limits.window, let bytes = link.machine.nextDataFrame() {
            write(bytes, link)
            guard links[link.id] === link else { return }
        }
        if !link.machine.isStreaming {
            if link.machine.closeReason == nil {
                counts.withLock { $0.finished += 1 }
            } else {
                counts.withLock { $0.refusedByProtocol += 1 }  // a state made again that did not match
            }
            close(link)
        }
    }

    private func write(_ bytes: [UInt8], _ link: Link) {
        for start in stride(from: 0, to: bytes.count, by: RelayTransport.maximumStreamMessage) {
            let end = min(bytes.count, start + RelayTransport.maximumStreamMessage)
            switch client.publish(link.reply, bytes[start..<end], qos: 1) {
            case .success(let mid):
                link.outstanding += end - start
                unacknowledged[mid] = (link.id, end - start)
            case .failure:
                return remove(link)
            }
        }
    }

    private func acknowledge(_ mid: Int32) {
        guard let (id, count) = unacknowledged.removeValue(forKey: mid), let link = links[id] else { return }
        link.outstanding -= count
        link.lastProgress = .now()
        pump(link)
    }

    /// Ends the connection: an empty message after everything written, as a TCP FIN.
    private func close(_ link: Link) {
        guard links[link.id] === link else { return }
        client.publish(link.reply, [UInt8](), qos: 1)
        remove(link)
    }

    private func remove(_ link: Link) {
        guard links[link.id] === link else { return }
        links[link.id] = nil
        remember(link.id)
    }

    private func remember(_ id: String) {
        ended.append(id)
        trimEnded()
    }

    private func trimEnded() {
        if ended.count > 64 { ended.removeFirst(ended.count - 64) }
    }

    /// Closes a streaming connection once its messages waited `writeStallTimeout` without one acknowledged.
    private func scheduleStallCheck(_ link: Link) {
        let (id, key) = (link.id, ObjectIdentifier(link))
        queue.asyncAfter(deadline: link.lastProgress + limits.writeStallTimeout) {
            guard let link = self.links[id], ObjectIdentifier(link) == key, link.streaming else { return }
            if link.outstanding > 0, DispatchTime.now() >= link.lastProgress + self.limits.writeStallTimeout {
                self.counts.withLock { $0.writeStalls += 1 }
                self.remove(link)
            } else {
                if link.outstanding == 0 { link.lastProgress = .now() }
                self.scheduleStallCheck(link)
            }
        }
    }
}
