import Foundation
import Handoff
import HandoffRelay
import Logging
import Synchronization
import HandoffWire

/// Keeps what arrives, in order, and lets a test wait until it satisfies a condition, woken
/// by each arrival, with a deadline that ends the wait as failed. Nothing sleeps in the hope
/// that something arrived meanwhile.
final class Collector<Item: Sendable>: Sendable {
    private struct Waiter {
        let condition: @Sendable ([Item]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var items: [Item] = []
        var waiters: [Int: Waiter] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    var items: [Item] { state.withLock { $0.items } }

    func append(_ item: Item) {
        let ready: [CheckedContinuation<Bool, Never>] = state.withLock { state in
            state.items.append(item)
            let met = state.waiters.filter { $0.value.condition(state.items) }
            for key in met.keys { state.waiters[key] = nil }
            return met.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
    }

    /// True once `condition` holds; false when `timeout` passes first.
    func wait(within timeout: Duration = .seconds(5), until condition: @escaping @Sendable ([Item]) -> Bool) async -> Bool {
        let key = state.withLock { state -> Int in
            state.next += 1
            return state.next
        }
        let deadline = Task {
            try? await Task.sleep(for: timeout)  // wait-ok: the deadline, cancelled when the condition holds
            let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
            waiter?.continuation.resume(returning: false)
        }
        defer { deadline.cancel() }
        return await withCheckedContinuation { continuation in
            let met = state.withLock { state -> Bool in
                if condition(state.items) { return true }
                state.waiters[key] = Waiter(condition: condition, continuation: continuation)
                return false
            }
            if met { continuation.resume(returning: true) }
        }
    }
}

/// A relay transport started with collectors for what it hears and the statuses it reports.
struct RelayPeer: Sendable {
    let transport: RelayTransport
    let sender: SenderID
    /// The device this peer's sender id names: the group key's one device, as in the other tests.
    let device: DeviceIdentity
    let heard = Collector<ReceivedDatagram>()
    let statuses = Collector<TransportStatus.Path.State>()

    init(_ broker: Broker, key: GroupKey, shelf: StateShelf? = nil, keepalive: Int = 10) throws {
        var configuration = try RelayConfiguration(broker.url)
        configuration.keepalive = keepalive
        try self.init(configuration: configuration, key: key, shelf: shelf)
    }

    init(configuration: RelayConfiguration, key: GroupKey, shelf: StateShelf? = nil, logger: Logger? = nil) throws {
        device = StreamIdentity.sharedByGroupKey(key).device
        let sender = SenderID.random(device: device.publicIdentity.deviceID)
        self.sender = sender
        if let logger {
            transport = try RelayTransport(configuration: configuration, groupKey: key, senderID: sender, shelf: shelf, logger: logger)
        } else {
            transport = try RelayTransport(configuration: configuration, groupKey: key, senderID: sender, shelf: shelf)
        }
        let (heard, statuses) = (heard, statuses)
        transport.start(
            TransportHandler(
                receive: { heard.append($0) },
                statusChanged: { status in
                    if let path = status.path(.relay) { statuses.append(path.state) }
                }))
    }

    /// Started and connected, or throws.
    static func connected(_ broker: Broker, key: GroupKey, shelf: StateShelf? = nil, keepalive: Int = 10) async throws -> RelayPeer {
        let peer = try RelayPeer(broker, key: key, shelf: shelf, keepalive: keepalive)
        guard await peer.statuses.wait(until: { $0.last == .up }) else {
            throw Broker.Failure(description: "the relay did not connect: \(peer.statuses.items)")
        }
        return peer
    }

    /// A datagram from this peer as the transport needs it: a real header, then `body` bytes
    /// standing for the sealed signature, payload and tag.
    func datagram(_ kind: DatagramKind, sequence: UInt64, body: [UInt8] = Array(repeating: 0x5A, count: 100)) -> [UInt8] {
        DatagramHeader(kind: kind, keyID: KeyID(bytes: [7, 7, 7, 7])!, senderID: sender, sequence: sequence).bytes + body
    }

    func heardBytes(_ bytes: [UInt8]) async -> Bool {
        await heard.wait { $0.contains { $0.bytes == bytes } }
    }
}

/// A plain MQTT client that keeps every message it hears, for looking at the broker from outside.
final class Observer: Sendable {
    let client: MQTTClient
    let messages = Collector<MQTTClient.Message>()
    private let probe = "baton-test/probe/\(UUID().uuidString)"

    /// Subscribes to each of `topics` (in this order), then to its own probe topic.
    init(_ broker: Broker, topics: [String]) async throws {
        client = try MQTTClient(configuration: try RelayConfiguration(broker.url))
        for topic in topics { client.addSubscription(topic, qos: 1) }
        client.addSubscription(probe, qos: 1)
        let (messages, connected) = (messages, Collector<Bool>())
        client.start(
            MQTTClient.Handlers(
                stateChanged: { if $0 == .connected { connected.append(true) } },
                message: { messages.append($0) }))
        guard await connected.wait(until: { !$0.isEmpty }) else { throw Broker.Failure(description: "the observer did not connect") }
    }

    /// Everything heard before a probe message of its own came back: the broker takes one
    /// client's packets in order, so every retained message of the subscriptions made before
    /// the probe has arrived by then. Nil when the probe did not come back.
    func settled() async -> [MQTTClient.Message]? {
        let marker = UUID().uuidString
        client.publish(probe, Array(marker.utf8), qos: 1)
        let probe = probe
        let isMarker: @Sendable (MQTTClient.Message) -> Bool = { $0.topic == probe && $0.payload == Array(marker.utf8) }
        guard await messages.wait(until: { $0.contains(where: isMarker) }) else { return nil }
        return Array(messages.items.prefix { !isMarker($0) })
    }

    func stop() { client.stop() }
}
