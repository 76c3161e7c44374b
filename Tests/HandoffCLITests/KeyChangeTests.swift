import BatonFiles
import Foundation
import Handoff
import HandoffCLI
import HandoffWire
import Testing

/// `baton devices remove` and `baton key --new` (docs/PROTOCOL.md, section 17, "Removing a
/// device"): the statements, who can open the new key, which device a name picks, what is said.
@Suite("Removing a device and changing the key")
struct KeyChangeTests {
    static let alice = DeviceIdentity(seed: Array(0xc0..<0xe0).map(UInt8.init))!
    static let bob = DeviceIdentity(seed: Array(0xe0..<0x100).map(UInt8.init))!
    static let carol = DeviceIdentity(seed: Array(0x20..<0x40).map(UInt8.init))!
    static let dave = DeviceIdentity(seed: Array(0x40..<0x60).map(UInt8.init))!
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Alice's list: bob paired, carol and dave introduced by bob.
    static func aliceRoster() -> DeviceRoster {
        var roster = DeviceRoster(own: alice.publicIdentity, name: "alice@laptop", paired: [(bob.publicIdentity, "bob@desk")])
        roster.take(Statement(.introduce(identity: carol.publicIdentity, name: "carol@vm"), by: bob, at: t0).bytes)
        roster.take(Statement(.introduce(identity: dave.publicIdentity, name: "dave@nas"), by: bob, at: t0).bytes)
        return roster
    }

    /// The list `device` holds: alice as a root, and alice's statements.
    static func membership(of device: DeviceIdentity, key: GroupKey, statements: [Statement]) -> Membership {
        var roster = DeviceRoster(own: device.publicIdentity, name: "me", paired: [(alice.publicIdentity, "alice@laptop")])
        roster.take(all: aliceRoster().statements.map(\.bytes))
        let membership = Membership(identity: device, keys: GroupKeys(current: key), roster: roster)
        _ = statements
        return membership
    }

    @Test("Removing carol from four: a remove, and a key statement for bob and dave each that opens with their identity only")
    func removal() throws {
        let old = GroupKey.random()
        let new = GroupKey.random()
        let roster = Self.aliceRoster()
        guard case .found(let carol) = DeviceMatch.find("carol@vm", in: roster) else { Issue.record("carol not found"); return }
        let change = KeyChange(roster: roster, identity: Self.alice, keys: GroupKeys(current: old), removing: carol, newKey: new, at: Self.t0)
        #expect(change.keys.current == new && change.keys.previous == old)
        #expect(change.recipients.map(\.name) == ["bob@desk", "dave@nas"])
        #expect(change.statements.count == 3)
        #expect(change.statements[0].content == .remove(device: Self.carol.publicIdentity.deviceID.bytes))
        #expect(change.statements.allSatisfy { $0.isSigned(by: Self.alice.publicIdentity) && $0.at == Self.t0 })
        let recipients = change.statements.dropFirst().compactMap { s -> [UInt8]? in
            if case .key(let to, _, _, _) = s.content { to } else { nil }
        }
        #expect(recipients == [Self.bob, Self.dave].map { $0.publicIdentity.deviceID.bytes })
        for statement in change.statements.dropFirst() {
            guard case .key(let to, let keyID, let ephemeral, let sealed) = statement.content else { continue }
            let recipient = to == Self.bob.publicIdentity.deviceID.bytes ? Self.bob : Self.dave
            #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: keyID, with: recipient) == new)
            #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: keyID, with: Self.carol) == nil)
        }
        // Taken by each: bob and dave switch to the new key; carol only learns she is removed.
        let all = change.statements.map(\.bytes)
        for device in [Self.bob, Self.dave] {
            let membership = Self.membership(of: device, key: old, statements: change.statements)
            #expect(membership.taking(all).newKey == new)
            #expect(membership.keys.current == new && membership.keys.previous == old)
            #expect(membership.device(for: DeviceTag(Self.carol.publicIdentity.deviceID)) == nil)
        }
        let removed = Self.membership(of: Self.carol, key: old, statements: change.statements)
        let seen = removed.taking(all)
        #expect(seen.newKey == nil && removed.keys.current == old)
        #expect(removed.roster.removed.contains(Self.carol.publicIdentity.deviceID.bytes))
    }

    @Test("baton key --new: a key statement for every other listed device, none for a removed one or this one")
    func newKey() {
        var roster = Self.aliceRoster()
        roster.take(Statement(.remove(device: Self.dave.publicIdentity.deviceID.bytes), by: Self.alice, at: Self.t0).bytes)
        let change = KeyChange(roster: roster, identity: Self.alice, keys: GroupKeys(current: GroupKey.random()), at: Self.t0)
        #expect(change.removed == nil)
        #expect(change.recipients.map(\.name) == ["bob@desk", "carol@vm"])
        #expect(change.statements.map(\.content.name) == ["key", "key"])
        #expect(change.summary == "New group key sent to 2 devices: bob@desk, carol@vm.")
        let alone = KeyChange(
            roster: DeviceRoster(own: Self.alice.publicIdentity, name: "a"), identity: Self.alice,
            keys: GroupKeys(current: GroupKey.random()), at: Date())
        #expect(alone.statements.isEmpty)
        #expect(alone.summary == "New group key made; no other device is listed to send it to.")
    }

    @Test("What remove says when it is done")
    func summary() throws {
        let roster = Self.aliceRoster()
        guard case .found(let dave) = DeviceMatch.find("DAVE@nas", in: roster) else { Issue.record("dave not found"); return }
        let change = KeyChange(roster: roster, identity: Self.alice, keys: GroupKeys(current: GroupKey.random()), removing: dave, at: Date())
        #expect(change.summary == """
            Removed dave@nas (fingerprint \(Self.dave.publicIdentity.deviceID.fingerprint)). \
            New group key sent to 2 devices: bob@desk, carol@vm.
            """)
    }

    @Test("Which device a name or fingerprint picks: this one is refused, two of one name are listed, a removed one is said so")
    func matching() {
        var roster = Self.aliceRoster()
        let bobFingerprint = Self.bob.publicIdentity.deviceID.fingerprint
        #expect(DeviceMatch.find(bobFingerprint, in: roster) == .found(roster.listed[Self.bob.publicIdentity.deviceID.bytes]!))
        #expect(DeviceMatch.find(String(bobFingerprint.prefix(9)), in: roster) == .found(roster.listed[Self.bob.publicIdentity.deviceID.bytes]!))
        #expect(DeviceMatch.find("alice@laptop", in: roster) == .own)
        #expect(DeviceMatch.find(Self.alice.publicIdentity.deviceID.hex, in: roster) == .own)
        #expect(DeviceMatch.find("nobody", in: roster) == .none)
        // Fewer than 4 digits pick nothing, and say why.
        let bobHex = Self.bob.publicIdentity.deviceID.hex
        #expect(DeviceMatch.find(String(bobHex.prefix(2)), in: roster) == .tooFewDigits(2))
        #expect(DeviceMatch.find(String(bobHex.prefix(3)).uppercased(), in: roster) == .tooFewDigits(3))
        #expect(DeviceMatch.find(String(bobHex.prefix(4)), in: roster) == .found(roster.listed[Self.bob.publicIdentity.deviceID.bytes]!))
        #expect(DeviceMatch.find("c6x", in: roster) == .none)
        let twin = DeviceIdentity.random()
        roster.take(Statement(.introduce(identity: twin.publicIdentity, name: "carol@vm"), by: Self.bob, at: Self.t0).bytes)
        guard case .ambiguous(let both) = DeviceMatch.find("carol@vm", in: roster) else { Issue.record("two carols"); return }
        #expect(Set(both.map(\.identity)) == [Self.carol.publicIdentity, twin.publicIdentity])
        roster.take(Statement(.remove(device: Self.dave.publicIdentity.deviceID.bytes), by: Self.alice, at: Self.t0).bytes)
        #expect(DeviceMatch.find(Self.dave.publicIdentity.deviceID.hex, in: roster)
            == .alreadyRemoved(fingerprint: Self.dave.publicIdentity.deviceID.fingerprint))
    }

    @Test("baton devices lists introduced devices with who introduced them, and removed ones marked")
    func rows() throws {
        var roster = Self.aliceRoster()
        roster.take(Statement(.remove(device: Self.dave.publicIdentity.deviceID.bytes), by: Self.alice, at: Self.t0).bytes)
        let snapshot = DeviceList.Snapshot(
            devices: [DeviceEntry(name: "bob@desk", identity: Self.bob.publicIdentity, paired: Self.t0)],
            statements: roster.statements.map(\.bytes))
        let rows = DeviceText.rows(snapshot, roster: roster)
        #expect(rows.map(\.name) == ["bob@desk", "carol@vm", "dave@nas"])
        #expect(rows.map(\.via) == ["paired", "introduced", "introduced"])
        #expect(rows.map(\.introducedBy) == [nil, "bob@desk", "bob@desk"])
        #expect(rows.map(\.removed) == [false, false, true])
        let text = DeviceText.list(rows, utc: true)
        #expect(text.contains("introduced by bob@desk  "))
        #expect(text.contains("introduced by bob@desk, removed"))
        let json = try JSONSerialization.jsonObject(with: Data(DeviceText.listJSON(rows).utf8)) as? [[String: Any]]
        #expect(json?[1]["introducedBy"] as? String == "bob@desk")
        #expect(json?[2]["removed"] as? Bool == true)
    }
}
