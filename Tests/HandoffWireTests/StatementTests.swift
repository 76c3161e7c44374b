import Foundation
import PropertyList
import Testing
@testable import HandoffWire

/// Statements and the list they make (docs/PROTOCOL.md, section 17).
@Suite("Statements and the device list")
struct StatementTests {
    static let alice = Fixtures.identity
    static let bob = Fixtures.bob
    static let carol = Fixtures.carol
    static let dave = DeviceIdentity(seed: Array(0x60..<0x80))!
    static let t0 = Fixtures.sentAt

    static func introduce(_ who: DeviceIdentity, _ name: String, by issuer: DeviceIdentity, at: TimeInterval = 0) -> Statement {
        Statement(.introduce(identity: who.publicIdentity, name: name), by: issuer, at: t0 + at)
    }

    static func remove(_ who: DeviceIdentity, by issuer: DeviceIdentity, at: TimeInterval = 0) -> Statement {
        Statement(.remove(device: who.publicIdentity.deviceID.bytes), by: issuer, at: t0 + at)
    }

    static func tag(_ who: DeviceIdentity) -> DeviceTag { DeviceTag(who.publicIdentity.deviceID) }

    /// Alice's list: alice, and bob, whom she paired with.
    static func aliceList() -> DeviceRoster {
        DeviceRoster(own: alice.publicIdentity, name: "alice", paired: [(bob.publicIdentity, "bob")])
    }

    @Test func eachKindReadsBackAsMade() throws {
        let key = GroupKey(bytes: Array(repeating: 9, count: 32))!
        for made in [
            Self.introduce(Self.carol, "carol@attic", by: Self.alice), Self.remove(Self.carol, by: Self.alice),
            Statement.key(key, for: Self.bob.publicIdentity, by: Self.alice, at: Self.t0),
        ] {
            let read = try Statement(parsing: made.bytes)
            #expect(read == made)
            #expect(read.by == Self.alice.publicIdentity.deviceID.bytes)
            #expect(read.at == Self.t0)
            #expect(read.isSigned(by: Self.alice.publicIdentity))
            #expect(!read.isSigned(by: Self.bob.publicIdentity))
            // The signature is alice's over the context and the body, nothing else.
            #expect(read.signature == Self.alice.sign(Array("baton v3 statement".utf8) + read.body))
            // Canonical: the body is what the writer makes of the body's own plist.
            #expect(BinaryPropertyListWriter().write(try BinaryPropertyListReader().read(read.body)) == read.body)
        }
    }

    @Test func malformedStatementsAreRefused() {
        let good = Self.introduce(Self.carol, "carol", by: Self.alice).bytes
        #expect(throws: StatementError.badSize) { try Statement(parsing: Array(good.prefix(63))) }
        #expect(throws: StatementError.badSize) { try Statement(parsing: [UInt8](repeating: 0, count: 1_025)) }
        #expect(throws: StatementError.malformedBody) { try Statement(parsing: [UInt8](repeating: 0, count: 100)) }
        func body(_ d: [String: PropertyListValue]) -> [UInt8] {
            [UInt8](repeating: 0, count: 64) + BinaryPropertyListWriter().write(.dictionary(d))
        }
        let by = PropertyListValue.data(Data(count: 16))
        #expect(throws: StatementError.unknownKind) { try Statement(parsing: body(["statement": "trust", "by": by, "at": .date(Self.t0)])) }
        #expect(throws: StatementError.invalidBody) { try Statement(parsing: body(["statement": "remove", "by": by, "at": .date(Self.t0)])) }
        #expect(throws: StatementError.invalidBody) {
            try Statement(parsing: body(["statement": "remove", "by": .data(Data(count: 15)), "at": .date(Self.t0), "device": by]))
        }
        #expect(throws: StatementError.invalidBody) {
            try Statement(parsing: body([
                "statement": "introduce", "by": by, "at": .date(Self.t0), "identity": .data(Data(count: 64)),
                "name": .string(String(repeating: "x", count: 65)),
            ]))
        }
        // Keys the table does not list are ignored.
        #expect((try? Statement(parsing: body(["statement": "remove", "by": by, "at": .date(Self.t0), "device": by, "why": "lost"]))) != nil)
    }

    @Test("A list that took a removal of this device or of the other refuses to pair with it; one without pairs")
    func pairingRefusal() {
        // Alice's list: bob paired, carol introduced by bob, then removed by bob.
        var list = Self.aliceList()
        list.take(Self.introduce(Self.carol, "carol@host3", by: Self.bob).bytes)
        #expect(list.pairingRefusal(with: Self.carol.publicIdentity, name: "carol") == nil)
        list.take(Self.remove(Self.carol, by: Self.bob, at: 1).bytes)
        #expect(list.pairingRefusal(with: Self.carol.publicIdentity, name: "carol") == .otherRemoved(name: "carol@host3"))
        #expect(list.pairingRefusal(with: Self.dave.publicIdentity, name: "dave") == nil)
        #expect(list.ownRemoval == nil)
        // Carol's own list, once it hears its removal: it knows, and says by whom.
        var carols = DeviceRoster(own: Self.carol.publicIdentity, name: "carol", paired: [(Self.bob.publicIdentity, "bob@host2")])
        let removal = Self.remove(Self.carol, by: Self.bob, at: 1)
        carols.take(removal.bytes)
        #expect(carols.ownRemoval == removal)
        #expect(carols.name(of: removal.by) == "bob@host2")
        #expect(carols.pairingRefusal(with: Self.dave.publicIdentity, name: "dave") == .thisRemoved)
    }

    @Test func anIntroductionListsTheDevice() {
        var list = Self.aliceList()
        #expect(list.identity(for: Self.tag(Self.carol)) == nil)
        // Bob, a root, introduces carol; carol introduces dave.
        #expect(list.take(Self.introduce(Self.carol, "carol@attic", by: Self.bob).bytes) == .taken)
        #expect(list.identity(for: Self.tag(Self.carol)) == Self.carol.publicIdentity)
        #expect(list.listed[Self.carol.publicIdentity.deviceID.bytes]?.name == "carol@attic")
        #expect(list.take(Self.introduce(Self.dave, "dave", by: Self.carol).bytes) == .taken)
        #expect(list.identity(for: Self.tag(Self.dave)) == Self.dave.publicIdentity)
        #expect(list.take(Self.introduce(Self.dave, "dave", by: Self.carol).bytes) == .known)
        #expect(list.statements.count == 2)
    }

    @Test func aForgedIssuerIsRefused() throws {
        var list = Self.aliceList()
        // Carol (not listed) writes bob's device id in `by` and signs with her own key.
        let honest = Self.introduce(Self.dave, "dave", by: Self.carol)
        var dict = try BinaryPropertyListReader().read(honest.body).dictionaryValue!
        dict["by"] = .data(Data(Self.bob.publicIdentity.deviceID.bytes))
        let body = BinaryPropertyListWriter().write(.dictionary(dict))
        let forged = Self.carol.sign(Array("baton v3 statement".utf8) + body) + body
        #expect(list.take(forged) == .refused(.badSignature))
        // A listed issuer's statement with one body byte changed fails the same way.
        var changed = Self.introduce(Self.dave, "dave", by: Self.bob).bytes
        changed[changed.count - 40] ^= 1
        if (try? Statement(parsing: changed)) != nil { #expect(list.take(changed) == .refused(.badSignature)) }
        #expect(list.identity(for: Self.tag(Self.dave)) == nil)
        #expect(list.statements.isEmpty)
    }

    @Test func removalBeatsALaterIntroductionAndStopsTheIssuer() {
        var list = Self.aliceList()
        #expect(list.take(Self.introduce(Self.carol, "carol", by: Self.bob).bytes) == .taken)
        #expect(list.take(Self.remove(Self.carol, by: Self.alice, at: 1).bytes) == .taken)
        #expect(list.identity(for: Self.tag(Self.carol)) == nil)
        // Introduced again later, by anyone, she stays removed (the statement is kept all the same).
        #expect(list.take(Self.introduce(Self.carol, "carol again", by: Self.bob, at: 2).bytes) == .taken)
        #expect(list.identity(for: Self.tag(Self.carol)) == nil)
        // A removed device's statements no longer count.
        #expect(list.take(Self.introduce(Self.dave, "dave", by: Self.carol, at: 3).bytes) == .refused(nil))
        #expect(list.take(Self.remove(Self.bob, by: Self.carol, at: 3).bytes) == .refused(nil))
        #expect(list.identity(for: Self.tag(Self.bob)) == Self.bob.publicIdentity)
        // Removal first, introduction second: the same.
        var other = Self.aliceList()
        other.take(Self.remove(Self.carol, by: Self.alice, at: 1).bytes)
        other.take(Self.introduce(Self.carol, "carol", by: Self.bob).bytes)
        #expect(other.identity(for: Self.tag(Self.carol)) == nil)
        // Removing a root works too, and devices it introduced stay.
        var third = Self.aliceList()
        third.take(Self.introduce(Self.carol, "carol", by: Self.bob).bytes)
        third.take(Self.remove(Self.bob, by: Self.alice).bytes)
        #expect(third.identity(for: Self.tag(Self.bob)) == nil)
        #expect(third.identity(for: Self.tag(Self.carol)) == Self.carol.publicIdentity)
    }

    @Test func twoRemovalsThatNameEachOtherBothHold() {
        let aRemovesB = Self.remove(Self.bob, by: Self.alice).bytes
        let bRemovesA = Self.remove(Self.alice, by: Self.bob).bytes
        for order in [[aRemovesB, bRemovesA], [bRemovesA, aRemovesB]] {
            var list = DeviceRoster(own: Self.carol.publicIdentity, name: "carol", paired: [(Self.alice.publicIdentity, "a"), (Self.bob.publicIdentity, "b")])
            #expect(list.take(all: order) == 2)
            #expect(list.removed == [Self.alice.publicIdentity.deviceID.bytes, Self.bob.publicIdentity.deviceID.bytes])
        }
    }

    @Test func aStatementFromAnIssuerNotYetListedWaitsThenCounts() {
        var list = Self.aliceList()
        let daveByCarol = Self.introduce(Self.dave, "dave", by: Self.carol).bytes
        #expect(list.take(daveByCarol) == .pending)
        #expect(list.take(daveByCarol) == .known)
        #expect(list.pending.count == 1)
        #expect(list.identity(for: Self.tag(Self.dave)) == nil)
        // Carol's introduction arrives: dave's is taken with it.
        #expect(list.take(Self.introduce(Self.carol, "carol", by: Self.bob).bytes) == .taken)
        #expect(list.pending.isEmpty)
        #expect(list.identity(for: Self.tag(Self.dave)) == Self.dave.publicIdentity)
        #expect(list.statements.count == 2)
        // Pairing also lets them in.
        var paired = Self.aliceList()
        paired.take(daveByCarol)
        paired.addPaired(Self.carol.publicIdentity, name: "carol")
        #expect(paired.identity(for: Self.tag(Self.dave)) == Self.dave.publicIdentity)
    }

    @Test func atMost64WaitAndAtMost1024AreKept() {
        var list = Self.aliceList()
        for n in 0..<70 {
            let someone = DeviceIdentity(seed: [UInt8](repeating: UInt8(n), count: 31) + [0xEE])!
            #expect(list.take(Self.introduce(Self.dave, "dave", by: someone).bytes) == .pending)
        }
        #expect(list.pending.count == DeviceRoster.maximumPending)
        var full = Self.aliceList()
        for n in 0..<DeviceRoster.maximumStatements {
            #expect(full.take(Self.remove(Self.dave, by: Self.alice, at: TimeInterval(n)).bytes) == .taken)
        }
        #expect(full.take(Self.remove(Self.carol, by: Self.alice).bytes) == .refused(nil))
        #expect(full.statements.count == 1_024)
    }

    @Test func twoKeyChangesAtOnceEndOnOneKey() {
        let keyA = GroupKey(bytes: Array(repeating: 0xA0, count: 32))!
        let keyB = GroupKey(bytes: Array(repeating: 0xB0, count: 32))!
        // Alice and bob each change the key at the same moment, for every other device.
        let fromAlice = [Self.bob, Self.carol].map { Statement.key(keyA, for: $0.publicIdentity, by: Self.alice, at: Self.t0).bytes }
        let fromBob = [Self.alice, Self.carol].map { Statement.key(keyB, for: $0.publicIdentity, by: Self.bob, at: Self.t0).bytes }
        let winner = max(keyA.keyID, keyB.keyID) == keyA.keyID ? keyA : keyB
        let roots: [(identity: PublicIdentity, name: String)] = [(Self.alice.publicIdentity, "a"), (Self.bob.publicIdentity, "b"), (Self.carol.publicIdentity, "c")]
        func list(_ me: DeviceIdentity) -> DeviceRoster {
            DeviceRoster(own: me.publicIdentity, name: "me", paired: roots.filter { $0.identity != me.publicIdentity })
        }
        var alice = list(Self.alice), bob = list(Self.bob), carol = list(Self.carol), carol2 = list(Self.carol)
        alice.take(all: fromAlice + fromBob)
        bob.take(all: fromBob + fromAlice)
        carol.take(all: fromAlice + fromBob)
        carol2.take(all: fromBob + fromAlice)
        // Each side's current key after its own change, then what the statements say.
        let aliceNow = alice.keyToSwitchTo(current: keyA.keyID, identity: Self.alice) ?? keyA
        let bobNow = bob.keyToSwitchTo(current: keyB.keyID, identity: Self.bob) ?? keyB
        let carolNow = carol.keyToSwitchTo(current: Fixtures.key.keyID, identity: Self.carol)
        let carol2Now = carol2.keyToSwitchTo(current: Fixtures.key.keyID, identity: Self.carol)
        #expect(aliceNow == winner && bobNow == winner && carolNow == winner && carol2Now == winner)
        // A later change wins over a greater key id.
        let keyC = GroupKey(bytes: Array(repeating: 0xC0, count: 32))!
        carol.take(Statement.key(keyC, for: Self.carol.publicIdentity, by: Self.alice, at: Self.t0 + 1).bytes)
        #expect(carol.keyToSwitchTo(current: winner.keyID, identity: Self.carol) == keyC)
        #expect(carol.keyToSwitchTo(current: keyC.keyID, identity: Self.carol) == nil)
        // An older one does not.
        carol.take(Statement.key(keyB, for: Self.carol.publicIdentity, by: Self.bob, at: Self.t0 - 5).bytes)
        #expect(carol.winningKeyChange?.keyID == keyC.keyID)
    }

    @Test func aSealedKeyOpensOnlyForItsDevice() {
        let key = GroupKey(bytes: Array(repeating: 0x42, count: 32))!
        let (ephemeral, sealed) = GroupKeySeal.seal(key, for: Self.bob.publicIdentity)
        #expect(sealed.count == 48 && ephemeral.count == 32)
        #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: key.keyID, with: Self.bob) == key)
        #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: key.keyID, with: Self.carol) == nil)
        #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: Fixtures.key.keyID, with: Self.bob) == nil)
        var changed = sealed
        changed[0] ^= 1
        #expect(GroupKeySeal.open(sealed: changed, ephemeral: ephemeral, keyID: key.keyID, with: Self.bob) == nil)
    }

    @Test func theDigestIsOfTheSetInAnyOrder() {
        let a = Self.remove(Self.carol, by: Self.alice).bytes, b = Self.introduce(Self.dave, "d", by: Self.bob).bytes
        #expect(Statement.setDigest([a, b]) == Statement.setDigest([b, a]))
        #expect(Statement.setDigest([a, b]) == Statement.setDigest([b, a, a]))
        #expect(Statement.setDigest([a]) != Statement.setDigest([a, b]))
        #expect(Statement.setDigest([a]).count == 8)
    }

    @Test("DEVICES packing keeps every datagram within the limit and every statement in order", arguments: [1_200, 600])
    func packing(limit: Int) throws {
        var list = Self.aliceList()
        for n in 0..<40 {
            let someone = DeviceIdentity(seed: [UInt8](repeating: UInt8(n), count: 31) + [0x11])!
            list.take(Self.introduce(someone, String(repeating: "n", count: 1 + n % 64), by: Self.alice).bytes)
        }
        let messages = list.devicesMessages(limit: limit, sentAt: Self.t0)
        var carried: [[UInt8]] = []
        for message in messages {
            guard case .devices(let statements, let digest) = message else { Issue.record("not DEVICES"); continue }
            #expect(digest == list.digest)
            let datagram = try GoldenVectorTests.codec.encode(
                message, identity: Self.alice, senderID: Fixtures.sender3, sequence: 1, sentAt: Self.t0)
            #expect(datagram.count <= limit)
            #expect(!statements.isEmpty)
            carried += statements
        }
        #expect(carried == list.statements.map(\.bytes))
        #expect(messages.count > 1)
        // Nothing kept still gives one DEVICES, for its digest.
        #expect(Self.aliceList().devicesMessages(sentAt: Self.t0).count == 1)
        // A statement too large to share a datagram goes alone.
        let big = [UInt8](repeating: 1, count: 1_024)
        let alone = DeviceRoster.devicesMessages([big, big], digest: list.digest, limit: limit, sentAt: Self.t0)
        #expect(alone.count == 2)
    }
}
