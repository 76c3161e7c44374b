import Foundation
import Handoff
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

    static func center(_ broker: Broker, name: String) throws -> (ActivityCenter, RelayTransport) {
        // Both centers are one device (the group key's), each a sender of its own.
        let membership = Membership(identity: StreamIdentity.sharedByGroupKey(key).device, groupKey: key)
        var config = ActivityCenter.Configuration(
            peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"),
            senderID: .random(device: membership.identity.publicIdentity.deviceID))
        config.repeatInterval = .milliseconds(200)
        let shelf = StateShelf()
        let relay = try RelayTransport(
            configuration: RelayConfiguration(broker.url), groupKey: key, senderID: config.senderID, shelf: shelf,
            streamIdentity: membership.streamIdentity(senderID: config.senderID), trust: membership.streamTrust)
        let dialer = RoutingStreamDialer(direct: RoutingStreamDialerTests.Refusing(name: "no TCP path"), relay: relay.streamDialer)
        let center = ActivityCenter(
            registry: ActivityTypeRegistry(declaredTypes: ["dev.baton.editing"]), membership: membership,
            transport: TransportSet([relay]), configuration: config,
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
        let (b, _) = try Self.center(broker, name: "bob@site-b")
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
        // Within 2 s, before B would forget it for silence (3.5 s): the WITHDRAW did it.
        #expect(await Self.wait(b, within: .seconds(2)) { !b.nearby.contains { $0.id == id } })
        await b.shutdown()
    }
}
