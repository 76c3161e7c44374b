import BatonDoctor
import BatonFiles
import Foundation
import Handoff
import HandoffMulticast
import HandoffWire
import Testing

/// What `baton doctor` says about membership: the identity and device list read first, a
/// removed machine, a key change under way, `BATON_KEY`, and peer names that do not resolve.
@Suite("baton doctor: membership")
struct DoctorMembershipTests {
    static let bob = DeviceIdentity(seed: Array(repeating: 0x42, count: 32))!
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A config folder of its own, as `XDG_CONFIG_HOME`.
    static func environment() throws -> [String: String] {
        let path = NSTemporaryDirectory() + "doctor-membership-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return ["XDG_CONFIG_HOME": path, "HOME": "/nonexistent"]
    }

    /// This device's membership, with bob paired.
    static func membership(_ device: DeviceIdentity, keys: GroupKeys) -> Membership {
        Membership(
            identity: device, keys: keys,
            roster: DeviceRoster(own: device.publicIdentity, name: "doctor", paired: [(bob.publicIdentity, "bob@host2")]))
    }

    static func query(_ codec: DatagramCodec, from device: DeviceIdentity, sequence: UInt64 = 1, at now: Date) throws -> [UInt8] {
        try codec.encode(
            .query(types: nil), identity: device, senderID: .random(device: device.publicIdentity.deviceID),
            sequence: sequence, sentAt: now)
    }

    @Test("The identity and the device list are checked first: an empty identity.key or a garbled devices.json is a problem")
    func filesFirst() throws {
        #expect(DoctorCheck.standard.first?.name == DoctorMembership.name)
        let environment = try Self.environment()
        let folder = environment["XDG_CONFIG_HOME"]! + "/baton"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)

        // No identity yet: doctor makes none, and says the machine is paired with no one.
        let (none, noFiles) = DoctorMembership.check(environment: environment)
        #expect(none.status == .problem && noFiles == nil)
        #expect(none.detail.contains("no identity yet"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/identity.key"))

        // An empty identity.key.
        #expect(FileManager.default.createFile(atPath: folder + "/identity.key", contents: Data(), attributes: [.posixPermissions: 0o600]))
        let (empty, _) = DoctorMembership.check(environment: environment)
        #expect(empty.status == .problem)
        #expect(empty.fix?.contains("identity.key.bad") == true, "\(empty.fix ?? "")")
        #expect(DoctorReport(findings: [empty]).exitStatus == 1)

        // A good identity, then a garbled devices.json.
        try FileManager.default.removeItem(atPath: folder + "/identity.key")
        _ = try DeviceIdentity.load(environment: environment)
        #expect(FileManager.default.createFile(
            atPath: folder + "/devices.json", contents: Data("{ not json".utf8), attributes: [.posixPermissions: 0o600]))
        let (garbled, _) = DoctorMembership.check(environment: environment)
        #expect(garbled.status == .problem)
        #expect(garbled.detail == "\(folder)/devices.json cannot be used")
        #expect(garbled.fix?.contains("devices.json.bad") == true, "\(garbled.fix ?? "")")

        // Without a list: a warning that it hears only itself; the files are read, not written.
        try FileManager.default.removeItem(atPath: folder + "/devices.json")
        let (alone, files) = DoctorMembership.check(environment: environment)
        #expect(alone.status == .warning && files != nil)
        #expect(!FileManager.default.fileExists(atPath: folder + "/devices.json"))
    }

    @Test("A removed machine says so, by whom, and that it needs a new identity; its own datagrams are not a stranger's")
    func removed() throws {
        let device = DeviceIdentity.random()
        let key = GroupKey.random()
        let membership = Self.membership(device, keys: GroupKeys(current: key))
        let codec = DatagramCodec(keys: GroupKeys(current: key))
        let now = Date()
        let own = SenderID.random(device: device.publicIdentity.deviceID)
        let probe = DoctorProbe()
        var tally = ListenTally()
        // Bob's DEVICES with the removal of this machine, heard while listening.
        let removal = Statement(.remove(device: device.publicIdentity.deviceID.bytes), by: Self.bob, at: Self.t0)
        tally.count(
            try codec.encode(
                .devices(statements: [removal.bytes], digest: Statement.setDigest([removal.bytes])), identity: Self.bob,
                senderID: .random(device: Self.bob.publicIdentity.deviceID), sequence: 1, sentAt: now),
            membership: membership, own: own, probe: probe, source: "10.77.0.12:47788", now: now)
        #expect(membership.roster.ownRemoval == removal)
        // Then another Baton program of this machine: refused by its own list, but not named as an unlisted device.
        tally.count(try Self.query(codec, from: device, at: now), membership: membership, own: own, probe: probe,
            source: "10.77.0.13:47788", now: now)
        #expect(tally.ownRefused == 1)
        #expect(tally.unknownDevice == 0 && tally.unknownDeviceSources.isEmpty)

        let devices = DoctorMembership.finding(membership.roster)
        #expect(devices.status == .problem)
        #expect(devices.detail.hasPrefix("this machine was removed from the group by bob@host2 ("), "\(devices.detail)")
        #expect(devices.fix?.hasPrefix("a removed identity cannot come back: move the identity aside here") == true)
        let listening = MulticastCheck.listening(tally, seconds: 3, removed: true)
        #expect(listening.status == .problem)
        #expect(listening.detail.hasPrefix("this machine was removed from the group"))
        #expect(listening.fix?.contains("pair again") == true && listening.fix?.contains("move the identity aside") == true)
    }

    @Test("During a key change, datagrams under the previous key are heard, not an error; one under the next key opens once its key statement came")
    func keyChange() throws {
        let device = DeviceIdentity.random()
        let (old, new) = (GroupKey.random(), GroupKey.random())
        let now = Date()
        let own = SenderID.random(device: device.publicIdentity.deviceID)
        let probe = DoctorProbe()

        // This machine took the new key; bob still sends under the old one.
        let changed = Self.membership(device, keys: GroupKeys(current: new, previous: old))
        var tally = ListenTally()
        tally.count(try Self.query(DatagramCodec(keys: GroupKeys(current: old)), from: Self.bob, at: now),
            membership: changed, own: own, probe: probe, now: now)
        tally.settle(membership: changed, own: own, probe: probe, now: now)
        #expect(tally.otherKey == 0 && tally.previousKey == 1 && tally.peers.count == 1)
        let heard = MulticastCheck.listening(tally, seconds: 3)
        #expect(heard.status == .ok)
        #expect(heard.detail == "heard 1 peer in 3 s (some under the previous group key: a key change is under way)")

        // This machine has not taken it yet: bob's datagram under the new key first, then his
        // DEVICES under the old key with the key statement for this machine.
        let behind = Self.membership(device, keys: GroupKeys(current: old))
        var late = ListenTally()
        late.count(try Self.query(DatagramCodec(keys: GroupKeys(current: new)), from: Self.bob, at: now),
            membership: behind, own: own, probe: probe, now: now)
        let statement = Statement.key(new, for: device.publicIdentity, by: Self.bob, at: Self.t0)
        late.count(
            try DatagramCodec(keys: GroupKeys(current: old)).encode(
                .devices(statements: [statement.bytes], digest: Statement.setDigest([statement.bytes])), identity: Self.bob,
                senderID: .random(device: Self.bob.publicIdentity.deviceID), sequence: 1, sentAt: now),
            membership: behind, own: own, probe: probe, now: now)
        late.settle(membership: behind, own: own, probe: probe, now: now)
        #expect(behind.keys.current == new)
        #expect(late.otherKey == 0)
        #expect(MulticastCheck.listening(late, seconds: 3).status == .ok)

        // A key that no statement explains is still another group's.
        var foreign = ListenTally()
        foreign.count(try Self.query(DatagramCodec(keys: GroupKeys(current: GroupKey.random())), from: Self.bob, at: now),
            membership: behind, own: own, probe: probe, now: now)
        foreign.settle(membership: behind, own: own, probe: probe, now: now)
        #expect(foreign.otherKey == 1)
        #expect(MulticastCheck.listening(foreign, seconds: 3).status == .problem)
    }

    @Test("Under BATON_KEY, datagrams under another key point at BATON_KEY, not at pairing again")
    func environmentKey() throws {
        var tally = ListenTally()
        tally.otherKey = 4
        let finding = MulticastCheck.listening(tally, seconds: 3, keyFromEnvironment: true)
        #expect(finding.status == .problem)
        #expect(finding.fix?.hasPrefix("BATON_KEY is set here and takes the place of the key file") == true)
        #expect(finding.fix?.contains("unset BATON_KEY") == true)
        #expect(MulticastCheck.listening(tally, seconds: 3).fix?.contains("pair again") == true)
        #expect(KeyCheck.fromEnvironment(keyFile: nil, environment: ["BATON_KEY": "x"]))
        #expect(!KeyCheck.fromEnvironment(keyFile: "/k", environment: ["BATON_KEY": "x"]))
        #expect(!KeyCheck.fromEnvironment(keyFile: nil, environment: [:]))
    }

    @Test("The key before the last change is read beside the key file, never under BATON_KEY")
    func previousKey() throws {
        let environment = try Self.environment()
        let path = environment["XDG_CONFIG_HOME"]! + "/group.key"
        let (old, new) = (GroupKey.random(), GroupKey.random())
        try GroupKey.store(current: new, previous: old, at: path)
        #expect(KeyCheck.previous(keyFile: path, environment: environment) == old)
        #expect(KeyCheck.previous(keyFile: nil, environment: environment.merging(["BATON_KEY": new.base64]) { $1 }) == nil)
    }

    @Test("A peer name that does not resolve is one ✗ line of the unicast check, naming it and where it came from")
    func unresolvedPeer() {
        let entry = UnicastPeerEntry(host: "desk.office.lan", port: nil, source: "/home/u/.config/baton/peers:3")
        let finding = MulticastCheck.unicast(peers: [], heard: [], multicastWorks: true, unresolved: [entry])
        #expect(finding.name == MulticastCheck.unicastName)
        #expect(finding.status == .problem)
        #expect(finding.detail == "desk.office.lan (/home/u/.config/baton/peers:3) does not resolve: skipped, and tried again every 30 s")
        let withOthers = MulticastCheck.unicast(peers: ["10.0.0.2"], heard: ["10.0.0.2"], multicastWorks: true, unresolved: [entry])
        #expect(withOthers.detail.hasSuffix("; 10.0.0.2 answered by unicast"))
    }
}
