import Foundation
import Handoff
import HandoffTesting
import Synchronization
import Testing

@testable import HandoffRelay
@testable import HandoffWire

/// Two activity centers that share nothing but a private mosquitto on 127.0.0.1: no LAN, no TCP.
@Suite(
    "Activity centers through the relay only",
    .serialized,
    .enabled(if: Broker.isUsable, "needs /usr/sbin/mosquitto (the reason is printed)"),
    .timeLimit(.minutes(1))
)
@MainActor
struct RelayCenterTests {
    static let key = GroupKey.random()

    /// A center through `broker` only; `configure` adjusts its configuration, and `wrap` puts
    /// something between it and its relay.
    static func center(
        _ broker: Broker, name: String, configure: (inout ActivityCenter.Configuration) -> Void = { _ in },
        clock: any HandoffClock = SystemClock(), wrap: (RelayTransport) -> any ActivityTransport = { $0 }
    ) throws -> (ActivityCenter, RelayTransport) {
        // Both centers are one device (the group key's), each a sender of its own.
        let membership = Membership(identity: StreamIdentity.sharedByGroupKey(key).device, groupKey: key)
        var config = ActivityCenter.Configuration(
            peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"),
            senderID: .random(device: membership.identity.publicIdentity.deviceID))
        config.repeatInterval = .milliseconds(200)
        configure(&config)
        let shelf = StateShelf()
        let relay = try RelayTransport(
            configuration: RelayConfiguration(broker.url), groupKey: key, senderID: config.senderID, shelf: shelf,
            streamIdentity: membership.streamIdentity(senderID: config.senderID), trust: membership.streamTrust)
        // The stream server's 1 s for a handshake and 10 s for a stalled write are for a machine
        // that does nothing else: under the whole suite a client's tasks wait seconds for a
        // thread, and a connection closed by a deadline no test here is about fails the test
        // (RelayStreamTests has the deadlines' own tests).
        var limits = RelayStateServer.Limits()
        limits.handshakeTimeout = .seconds(600)
        limits.writeStallTimeout = .seconds(600)
        relay.stateServer?.setLimits(limits)
        let dialer = RoutingStreamDialer(direct: RoutingStreamDialerTests.Refusing(name: "no TCP path"), relay: relay.streamDialer)
        let center = ActivityCenter(
            registry: ActivityTypeRegistry(declaredTypes: ["dev.baton.editing"]), membership: membership,
            transport: TransportSet([wrap(relay)]), configuration: config, clock: clock,
            stateStream: StateStreamSetup(shelf: shelf, port: 47_800, dialer: dialer))
        center.start()
        return (center, relay)
    }

    /// Waits, woken by the center's events, until `condition` holds; false after `timeout`.
    static func wait(_ center: ActivityCenter, within timeout: Duration = .seconds(30), until condition: @escaping @MainActor () -> Bool) async -> Bool {
        let events = center.events()
        if condition() { return true }
        return await within(timeout) { @MainActor in
            for await _ in events where condition() { return true }
            return false
        } ?? false
    }

    @Test("A 300 KB editing session offered through the broker is listed, fetched through it and continued")
    func continueThroughRelay() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let (a, relayA) = try Self.center(broker, name: "alice@site-a")
        // B forgets nothing for silence here: only the WITHDRAW takes the activity away, however
        // long the suite's load makes it take to arrive.
        let (b, _) = try Self.center(broker, name: "bob@site-b") { $0.forgetAfter = .seconds(600) }
        #expect(await Self.wait(b) { b.transport.status.path(.relay)?.isUp == true })

        let text = String(repeating: "Grüße from site A, line after line of it.\n", count: 7_000)
        let activity = UserActivity(activityType: "dev.baton.editing", center: a)
        activity.title = "Editing far.txt"
        activity.userInfo = ["text": .string(text), "cursorLine": 3, "cursorColumn": 0, "fileName": "far.txt"]
        try activity.becomeCurrent()
        let id = activity.activityID
        #expect(await Self.wait(b) { b.nearby.contains { $0.id == id && $0.offer != nil } })
        let entry = try #require(b.nearby.first { $0.id == id })
        #expect(entry.source == "relay:\(relayA.senderTopic)")

        let started = ContinuousClock.now
        let continued = try await b.continueActivity(entry) { _ in }
        print("HandoffRelayTests: continued \(entry.offer?.size ?? 0) bytes through the broker in \(ContinuousClock.now - started)")
        #expect(continued.userInfo["text"] == .string(text))
        #expect(continued.userInfo["cursorLine"] == 3)

        // A stops: its WITHDRAW reaches B through the broker, and the broker keeps nothing.
        await a.shutdown()
        #expect(await Self.wait(b) { !b.nearby.contains { $0.id == id } })
        await b.shutdown()
    }

    @Test("A find whose relay connects late weighs every kept activity: the newest wins, not the first kept")
    func lateRelayPicksNewest() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        // A repeats as usual; B only answers QUERYs, at once, so that what the broker keeps of it is up to the test.
        let (a, relayA) = try Self.center(broker, name: "alice@site-a")
        let (b, relayB) = try Self.center(broker, name: "bob@site-b") { config in
            config.repeatInterval = .seconds(600)
            config.burstRepeats = 0
            config.queryAnswerDelay = .zero
        }
        let observer = try await Observer(
            broker, topics: [relayA.topics.activity(relayA.senderTopic), relayB.topics.activity(relayB.senderTopic)])
        defer { observer.stop() }

        // A offers the older state and the broker keeps it; B then offers a newer one.
        let older = UserActivity(activityType: "dev.baton.editing", center: a)
        older.userInfo = ["text": "count 3", "cursorLine": 0, "cursorColumn": 0, "fileName": "count.txt"]
        try older.becomeCurrent()
        let keptA: @Sendable ([MQTTClient.Message]) -> Bool = { $0.contains { $0.topic.hasSuffix(relayA.senderTopic) && !$0.payload.isEmpty } }
        #expect(await observer.messages.wait(within: .seconds(10), until: keptA))
        let newer = UserActivity(activityType: "dev.baton.editing", center: b)
        newer.userInfo = ["text": "count 5", "cursorLine": 0, "cursorColumn": 0, "fileName": "count.txt"]
        try newer.becomeCurrent()
        let bTopic = relayB.topics.activity(relayB.senderTopic)
        #expect(await observer.messages.wait(within: .seconds(10)) { $0.contains { $0.topic == bTopic && !$0.payload.isEmpty } })
        // The broker forgets B's (as after a restart that B has not yet published into): the
        // finder hears A's kept offer first, alone, and B's newer one only as B's answer to its QUERY.
        observer.client.publish(bTopic, [UInt8](), qos: 1, retain: true)
        let kept = try #require(await observer.settled())
        #expect(kept.last { $0.topic == bTopic }?.payload == [])

        // C asks before its relay is connected, in virtual time: its first window passes empty
        // (its QUERYs wait in the relay), and then the relay comes up with A's kept offer first.
        // B's answer is held until C has taken A's: only a second window lets it count.
        let late = LateStart(holding: "relay:\(relayB.senderTopic)")
        let clock = ManualClock(start: Date())
        let (c, _) = try Self.center(broker, name: "carol@site-c", configure: { config in
            config.queryGatherWindow = .milliseconds(200)
            config.queryRetryInterval = .milliseconds(400)
        }, clock: clock, wrap: { late.inner = $0; return late })
        let found = Task { @MainActor in await c.findNearby(type: "dev.baton.editing", timeout: .seconds(10)) }
        #expect(await late.queries.wait(within: .seconds(10)) { $0.count >= 1 })
        clock.advance(by: .milliseconds(500))
        #expect(await late.queries.wait(within: .seconds(10)) { $0.count >= 2 })
        late.go()
        #expect(await Self.wait(c) { c.nearby.contains { $0.id == older.activityID } })
        #expect(await late.held.wait(within: .seconds(10)) { !$0.isEmpty }, "B never answered C's QUERY")
        late.release()
        #expect(await Self.wait(c) { c.nearby.contains { $0.id == newer.activityID } })
        clock.advance(by: .milliseconds(300))
        let picked = await found.value
        #expect(picked?.id == newer.activityID, "picked \(picked?.record.userInfo["text"].map { "\($0)" } ?? "nothing")")
        #expect(picked?.record.userInfo["text"] == "count 5")

        for center in [a, b, c] { await center.shutdown() }
    }
}

/// A transport that starts its relay only when told, keeping the center's handler until then,
/// counts the QUERYs handed to it, and holds what arrives from one source until released.
final class LateStart: ActivityTransport, @unchecked Sendable {
    // Set once, before the center starts; read after.
    var inner: RelayTransport!
    let holding: String
    private let state = Mutex<(handler: TransportHandler?, released: Bool, kept: [ReceivedDatagram])>((nil, false, []))
    let queries = Collector<Int>()
    /// How many datagrams from `holding` wait.
    let held = Collector<Int>()

    init(holding: String) { self.holding = holding }

    func start(_ handler: TransportHandler) { state.withLock { $0.handler = handler } }

    /// Starts the relay with the center's handler, holding back what comes from `holding`.
    func go() {
        guard let handler = state.withLock({ $0.handler }) else { return }
        let holding = holding
        inner.start(
            TransportHandler(
                deliver: { [self] datagram in
                    // One lock around every delivery, so that a release never runs beside one.
                    state.withLock { state in
                        guard datagram.source == holding, !state.released else { return handler.deliver(datagram) }
                        state.kept.append(datagram)
                        held.append(state.kept.count)
                        return .accepted
                    }
                },
                sendFailed: handler.sendFailed, statusChanged: handler.statusChanged))
    }

    /// Delivers what was held, in order, and everything after it as it comes.
    func release() {
        state.withLock { state in
            state.released = true
            for datagram in state.kept { _ = state.handler?.deliver(datagram) }
            state.kept = []
        }
    }

    func send(_ bytes: [UInt8]) {
        if bytes.count > 4, bytes[4] == DatagramKind.query.rawValue { queries.append(queries.items.count + 1) }
        inner.send(bytes)
    }

    func close() async { await inner.close() }
    var endpointDescription: String { inner.endpointDescription }
    var status: TransportStatus { inner.status }
}
