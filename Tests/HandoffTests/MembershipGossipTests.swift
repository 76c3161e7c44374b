import Foundation
import Synchronization
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// Devices that are not one: centers with identities of their own, the statements they pass
/// around in DEVICES datagrams, and what those change (docs/PROTOCOL.md, sections 7 and 17).
@MainActor
@Suite("Devices: introductions, removals and key changes between centers")
struct MembershipGossipTests {
    static let alice = DeviceIdentity(seed: Array(repeating: 0xA1, count: 32))!
    static let bob = DeviceIdentity(seed: Array(repeating: 0xB0, count: 32))!
    static let carol = DeviceIdentity(seed: Array(repeating: 0xC0, count: 32))!
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A center that is `identity`, listing `paired` as roots and having taken `statements`.
    static func center(
        _ identity: DeviceIdentity, name: String, paired: [DeviceIdentity] = [], statements: [Statement] = [],
        key: GroupKey = Fixtures.key, previous: GroupKey? = nil, on network: InMemoryNetwork,
        clock: any HandoffClock = SystemClock()
    ) -> ActivityCenter {
        var roster = DeviceRoster(
            own: identity.publicIdentity, name: name, paired: paired.map { ($0.publicIdentity, "\($0.publicIdentity)") })
        roster.take(all: statements.map(\.bytes))
        var config = ActivityCenter.Configuration(
            peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"),
            senderID: .random(device: identity.publicIdentity.deviceID))
        config.repeatInterval = .milliseconds(50)
        let center = ActivityCenter(
            registry: Fixtures.registry,
            membership: Membership(identity: identity, keys: GroupKeys(current: key, previous: previous), roster: roster),
            transport: network.makeTransport(name: name), configuration: config, clock: clock)
        center.start()
        return center
    }

    static func publishCounter(on center: ActivityCenter, count: Int) throws -> UserActivity {
        let activity = UserActivity(activityType: "dev.baton.counter", center: center)
        activity.userInfo = ["count": .integer(count)]
        try activity.becomeCurrent()
        return activity
    }

    @Test("A device nobody listed is unknownDevice; once a listed device's introduction of it arrives, it is heard")
    func introductionLetsADeviceIn() async throws {
        let network = InMemoryNetwork()
        let bob = Self.center(Self.bob, name: "bob", paired: [Self.alice], on: network)
        let carol = Self.center(Self.carol, name: "carol", paired: [Self.alice], on: network)
        let activity = try Self.publishCounter(on: carol, count: 3)
        #expect(await waitUntil { bob.statistics[.unknownDevice] > 0 })
        #expect(bob.nearby.isEmpty, "nothing shown from a device bob does not list")

        // Alice, who paired with both, introduces carol; her DEVICES reach bob at her start.
        let introduction = Statement(.introduce(identity: Self.carol.publicIdentity, name: "carol"), by: Self.alice, at: Self.t0)
        let alice = Self.center(Self.alice, name: "alice", paired: [Self.bob, Self.carol], statements: [introduction], on: network)
        #expect(await waitUntil { bob.membership.device(for: DeviceTag(Self.carol.publicIdentity.deviceID)) != nil })
        #expect(await waitUntil { bob.nearby.first?.id == activity.activityID }, "carol's counter is heard now")
        // Carol took alice's statement too, and bob's list now holds it: the digests agree.
        #expect(await waitUntil { carol.membership.roster.digest == alice.membership.roster.digest })
        #expect(bob.membership.roster.digest == alice.membership.roster.digest)
        for center in [alice, bob, carol] { await center.shutdown() }
    }

    @Test("A removal and a key change reach a listed device: the removed one is refused, the new key is taken, the old one still opens")
    func removalAndKeyChange() async throws {
        let network = InMemoryNetwork()
        let newKey = GroupKey(bytes: Array(200..<232))!
        let bob = Self.center(Self.bob, name: "bob", paired: [Self.alice, Self.carol], on: network)
        let carol = Self.center(Self.carol, name: "carol", paired: [Self.alice, Self.bob], on: network)
        let before = try Self.publishCounter(on: carol, count: 1)
        #expect(await waitUntil { bob.nearby.first?.id == before.activityID })
        var changes: [Membership.Change] = []
        let events = bob.events()
        let watcher = Task { @MainActor in
            for await event in events { if case .membershipChanged(let change) = event { changes.append(change) } }
        }

        // Alice removes carol and gives bob a new key: she holds it already, the old one as previous.
        let remove = Statement(.remove(device: Self.carol.publicIdentity.deviceID.bytes), by: Self.alice, at: Self.t0)
        let key = Statement.key(newKey, for: Self.bob.publicIdentity, by: Self.alice, at: Self.t0)
        let alice = Self.center(
            Self.alice, name: "alice", paired: [Self.bob, Self.carol], statements: [remove, key], key: newKey,
            previous: Fixtures.key, on: network)
        #expect(await waitUntil { bob.membership.keys.current == newKey })
        #expect(bob.membership.keys.previous == Fixtures.key)
        #expect(bob.membership.device(for: DeviceTag(Self.carol.publicIdentity.deviceID)) == nil)
        #expect(await waitUntil { changes.contains { $0.newKey == newKey } }, "the program is told, to store it")

        // Carol's next datagrams (under the old key, which bob still opens) are refused as hers.
        let refusedBefore = bob.statistics[.unknownDevice]
        before.userInfo = ["count": 2]
        #expect(await waitUntil { bob.nearby.isEmpty }, "carol's activity is forgotten, not refreshed")
        // Rejections only count; the gate hands its counters over at the center's next wake-up.
        #expect(await waitUntil {
            bob.absorbReceived()
            return bob.statistics[.unknownDevice] > refusedBefore
        })

        // Bob now seals with the new key, and alice hears him.
        let bobs = try Self.publishCounter(on: bob, count: 7)
        #expect(await waitUntil { alice.nearby.contains { $0.id == bobs.activityID } })
        // Carol, who holds only the old key, does not.
        #expect(!carol.nearby.contains { $0.id == bobs.activityID })
        watcher.cancel()
        for center in [alice, bob, carol] { await center.shutdown() }
    }

    @Test("DEVICES go out at start and every 30 s, none from a device with no statement; a different digest from a listed device is answered within a second, from an unlisted one never")
    func gossipTiming() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock(start: Self.t0)
        let heard = HeardKinds()
        let listener = network.makeTransport(name: "listener")
        listener.start(TransportHandler(receive: { datagram in
            if let header = try? DatagramHeader(parsing: datagram.bytes) { heard.add(header.kind, from: header.senderID.tag) }
        }))
        let introduction = Statement(.introduce(identity: Self.carol.publicIdentity, name: "carol"), by: Self.alice, at: Self.t0)
        let alice = Self.center(
            Self.alice, name: "alice", paired: [Self.bob], statements: [introduction], on: network, clock: clock)
        let bob = Self.center(Self.bob, name: "bob", paired: [Self.alice], on: network, clock: clock)
        let aliceTag = DeviceTag(Self.alice.publicIdentity.deviceID)
        let bobTag = DeviceTag(Self.bob.publicIdentity.deviceID)
        #expect(await waitUntil { heard.count(.devices, from: aliceTag) == 1 }, "at start")
        // Bob took alice's introduction and so changed: he sends what he keeps at once.
        #expect(await waitUntil { heard.count(.devices, from: bobTag) >= 1 })
        let bobAfterChange = heard.count(.devices, from: bobTag)
        clock.advance(by: .seconds(29))
        #expect(heard.count(.devices, from: aliceTag) == 1)
        clock.advance(by: .seconds(1))
        #expect(await waitUntil { heard.count(.devices, from: aliceTag) == 2 }, "30 s later")
        #expect(await waitUntil { heard.count(.devices, from: bobTag) > bobAfterChange }, "bob's, 30 s later too")

        // A listed device whose set differs: alice answers it once, not again within the second.
        let sentBefore = heard.count(.devices, from: aliceTag)
        let stranger = DeviceIdentity(seed: Array(repeating: 0x5E, count: 32))!
        let bobOther = Statement(.introduce(identity: stranger.publicIdentity, name: "x"), by: Self.bob, at: Self.t0)
        for (n, sender) in [SenderID.random(device: Self.bob.publicIdentity.deviceID), .random(device: stranger.publicIdentity.deviceID)].enumerated() {
            // n = 0: bob (listed) with a statement alice will take; n = 1: a device alice does not list.
            let identity = n == 0 ? Self.bob : stranger
            let message = HandoffMessage.devices(statements: n == 0 ? [bobOther.bytes] : [], digest: Array(repeating: 9, count: 8))
            let bytes = try DatagramCodec(keys: GroupKeys(current: Fixtures.key)).encode(
                message, identity: identity, senderID: sender, sequence: 1, sentAt: clock.date)
            alice.receive(ReceivedDatagram(bytes: bytes, source: "192.0.2.\(n + 1):47788"), now: clock.date)
        }
        #expect(await waitUntil { heard.count(.devices, from: aliceTag) == sentBefore + 1 }, "one answer")
        #expect(alice.membership.device(for: DeviceTag(stranger.publicIdentity.deviceID)) != nil, "bob's introduction taken")
        _ = bob
        // A device with no statements sends no DEVICES at all.
        let loner = Self.center(Self.carol, name: "carol", on: network, clock: clock)
        clock.advance(by: .seconds(31))
        #expect(await waitUntil { heard.count(.devices, from: aliceTag) >= sentBefore + 2 })
        #expect(heard.count(.devices, from: DeviceTag(Self.carol.publicIdentity.deviceID)) == 0)
        for center in [alice, bob, loner] { await center.shutdown() }
    }
}

/// Datagram kinds heard, by the sending device's tag.
final class HeardKinds: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func add(_ kind: DatagramKind, from tag: DeviceTag) {
        counts.withLock { $0["\(kind)-\(tag)", default: 0] += 1 }
    }

    func count(_ kind: DatagramKind, from tag: DeviceTag) -> Int {
        counts.withLock { $0["\(kind)-\(tag)"] ?? 0 }
    }
}
