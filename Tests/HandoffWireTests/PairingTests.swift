import Crypto
import Foundation
import PropertyList
import Testing
@testable import HandoffWire

/// `baton pair`'s machine over in-memory bytes (docs/PROTOCOL.md, section 15).
@Suite("Pairing")
struct PairingTests {
    static var sharerPrivate: Curve25519.KeyAgreement.PrivateKey { try! .init(rawRepresentation: Array(0x40..<0x60).map(UInt8.init)) }
    static var joinerPrivate: Curve25519.KeyAgreement.PrivateKey { try! .init(rawRepresentation: Array(0x60..<0x80).map(UInt8.init)) }
    static let sharerNonce = Array(0x80..<0xa0).map(UInt8.init)
    static let joinerNonce = Array(0xa0..<0xc0).map(UInt8.init)
    static let pairingID = Array(0x10..<0x20).map(UInt8.init)
    static let sharerIdentity = DeviceIdentity(seed: Array(0xc0..<0xe0).map(UInt8.init))!
    static let joinerIdentity = DeviceIdentity(seed: Array(0xe0..<0x100).map(UInt8.init))!
    static var alice: PublicIdentity { sharerIdentity.publicIdentity }
    static var bob: PublicIdentity { joinerIdentity.publicIdentity }
    /// A device the sharer introduced before this pairing.
    static let carolIdentity = DeviceIdentity(seed: Array(0x20..<0x40).map(UInt8.init))!
    static let statementTime = Date(timeIntervalSince1970: 1_800_000_000)
    /// What the sharer keeps before the pairing: its introduction of carol.
    static var sharerStatements: [[UInt8]] {
        [Statement(.introduce(identity: carolIdentity.publicIdentity, name: "carol@vm"), by: sharerIdentity, at: statementTime).bytes]
    }

    static func machines(fixed: Bool = true) -> (sharer: PairingMachine, joiner: PairingMachine) {
        if fixed {
            return (
                PairingMachine(
                    role: .sharer(Fixtures.key), name: "alice@laptop", identity: sharerIdentity, statements: sharerStatements,
                    privateKey: Array(sharerPrivate.rawRepresentation), nonce: sharerNonce, clock: { statementTime }),
                PairingMachine(
                    role: .joiner, name: "bob@desk", identity: joinerIdentity, privateKey: Array(joinerPrivate.rawRepresentation),
                    nonce: joinerNonce, clock: { statementTime }))
        }
        return (
            PairingMachine(role: .sharer(Fixtures.key), name: "alice@laptop", identity: sharerIdentity, clock: { Date() }),
            PairingMachine(role: .joiner, name: "bob@desk", identity: joinerIdentity, clock: { Date() }))
    }

    /// The bytes of every `.send` in `actions`.
    static func sent(_ actions: [PairingAction]) -> [UInt8] {
        actions.flatMap { action -> [UInt8] in if case .send(let bytes) = action { bytes } else { [] } }
    }

    static func code(_ actions: [PairingAction]) -> String? {
        actions.lazy.compactMap { if case .showCode(let code, _, _) = $0 { code } else { nil } }.first
    }

    /// The key of a `.storeKey` in `actions`.
    static func storedKey(_ actions: [PairingAction]) -> GroupKey? {
        actions.lazy.compactMap { if case .storeKey(let key, _) = $0 { key } else { nil } }.first
    }

    /// The statements of a `.storeKey` in `actions`.
    static func storedStatements(_ actions: [PairingAction]) -> [[UInt8]]? {
        actions.lazy.compactMap { if case .storeKey(_, let statements) = $0 { statements } else { nil } }.first
    }

    /// Who a `.paired` in `actions` names.
    static func paired(_ actions: [PairingAction]) -> (name: String, peer: PublicIdentity)? {
        actions.lazy.compactMap { if case .paired(let name, let peer, _) = $0 { (name, peer) } else { nil } }.first
    }

    static func failure(_ actions: [PairingAction]) -> PairingFailure? {
        actions.lazy.compactMap { if case .failed(let failure) = $0 { failure } else { nil } }.first
    }

    /// Runs both machines up to the code on both screens: (sharer's, joiner's code).
    static func toCodes(_ s: inout PairingMachine, _ j: inout PairingMachine) -> (String?, String?) {
        let commit = j.start()
        let publicFrame = s.received(sent(commit))
        let joinerSide = j.received(sent(publicFrame))
        let sharerSide = s.received(sent(joinerSide))
        return (code(sharerSide), code(joinerSide))
    }

    @Test("Both sides show the same code; with two yeses the key arrives, is stored, and both are paired")
    func confirmed() throws {
        for fixed in [true, false] {
            var (s, j) = Self.machines(fixed: fixed)
            let (sharerCode, joinerCode) = Self.toCodes(&s, &j)
            #expect(sharerCode != nil)
            #expect(sharerCode == joinerCode)
            #expect(sharerCode?.count == 7 && sharerCode?.dropFirst(3).first == " ")
            // The sharer says yes first: nothing is sent until the joiner's confirmation opened.
            #expect(s.answered(true).isEmpty)
            let confirm = j.answered(true)
            let key = s.received(Self.sent(confirm))
            let atJoiner = j.received(Self.sent(key))
            #expect(atJoiner.count == 1 && Self.storedKey(atJoiner) == Fixtures.key)
            let done = j.stored()
            #expect(Self.paired(done)?.name == "alice@laptop" && Self.paired(done)?.peer == Self.alice)
            let atSharer = s.received(Self.sent(done))
            #expect(atSharer.count == 1 && Self.paired(atSharer)?.name == "bob@desk" && Self.paired(atSharer)?.peer == Self.bob)
            #expect(s.isDone && j.isDone)
        }
    }

    @Test("The joiner says yes first: the key still waits for the sharer's own yes")
    func keyOnlyAfterBothConfirmed() {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        let afterConfirm = s.received(Self.sent(j.answered(true)))
        #expect(afterConfirm.isEmpty)
        let key = s.answered(true)
        #expect(Self.sent(key).first == Pairing.FrameType.sealed.rawValue)
        #expect(Self.storedKey(j.received(Self.sent(key))) == Fixtures.key)
    }

    @Test("A removed machine is refused before the codes are compared, and the other side is told which one was removed")
    func removedRefused() {
        // The sharer's list says the joiner was removed: ABORT 05, which the joiner reads as "this machine was removed".
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        let refused = s.refuse(.otherRemoved(name: "carol@host3"))
        #expect(Self.failure(refused) == .otherRemoved(name: "carol@host3"))
        #expect(Self.sent(refused) == Pairing.frame(.abort, [5]))
        let atJoiner = j.received(Self.sent(refused))
        #expect(Self.failure(atJoiner) == .removedThere)
        #expect(Self.storedKey(refused + atJoiner) == nil)
        #expect(s.isDone && j.isDone)
        // The joiner's own list says it was removed: ABORT 06, read as "the other machine was removed".
        (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        let itself = j.refuse(.thisRemoved)
        #expect(Self.sent(itself) == Pairing.frame(.abort, [6]))
        #expect(Self.failure(s.received(Self.sent(itself))) == .otherRemovedThere)
        // Once the pairing ended, a refusal changes nothing.
        #expect(s.refuse(.thisRemoved).isEmpty)
    }

    @Test("A no on either side ends both, and no key is handed over", arguments: [true, false])
    func declined(sharerDeclines: Bool) {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        var everything: [PairingAction] = []
        if sharerDeclines {
            _ = j.answered(true)
            let no = s.answered(false)
            #expect(Self.failure(no) == .declinedHere)
            let atJoiner = j.received(Self.sent(no))
            #expect(Self.failure(atJoiner) == .declinedThere)
            everything = no + atJoiner
        } else {
            #expect(s.answered(true).isEmpty)
            let no = j.answered(false)
            #expect(Self.failure(no) == .declinedHere)
            let atSharer = s.received(Self.sent(no))
            #expect(Self.failure(atSharer) == .declinedThere)
            everything = no + atSharer
        }
        #expect(Self.storedKey(everything) == nil)
        #expect(s.isDone && j.isDone)
    }

    @Test("A REVEAL that does not match its commitment aborts the sharer before any code is shown")
    func forgedReveal() {
        var (s, j) = Self.machines()
        let publicFrame = s.received(Self.sent(j.start()))
        _ = j.received(Self.sent(publicFrame))
        // Another key revealed in place of the committed one.
        let forged = Pairing.frame(
            .reveal, Array(Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation) + Self.joinerNonce + Self.bob.bytes)
        let actions = s.received(forged)
        #expect(Self.failure(actions) == .commitmentMismatch)
        #expect(Self.code(actions) == nil)
        #expect(Self.sent(actions) == Pairing.frame(.abort, [3]))
        #expect(s.isDone)
    }

    @Test("A man in the middle with his own keys gets two codes that differ (for these keys), and his sealed frames do not open")
    func manInTheMiddle() {
        var (s, j) = Self.machines()
        // He runs one exchange with each side.
        let his = DeviceIdentity.random()
        var towardsSharer = PairingMachine(role: .joiner, name: "bob@desk", identity: his, clock: { Date() })
        var towardsJoiner = PairingMachine(role: .sharer(GroupKey.random()), name: "alice@laptop", identity: his, clock: { Date() })
        let (sharerCode, _) = Self.toCodes(&s, &towardsSharer)
        let (_, joinerCode) = Self.toCodes(&towardsJoiner, &j)
        #expect(sharerCode != joinerCode)
        // The joiner's confirmation, relayed as is, does not open at the sharer.
        _ = s.answered(true)
        let relayed = s.received(Self.sent(j.answered(true)))
        if case .protocolError = Self.failure(relayed) {} else { Issue.record("expected a protocol error, got \(relayed)") }
    }

    @Test("A timeout ends either side at any point before the end, with ABORT 04")
    func timeout() {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        let late = s.timedOut()
        #expect(Self.failure(late) == .timedOut)
        #expect(Self.failure(j.received(Self.sent(late))) == .otherSideAborted(4))
        var lone = PairingMachine(role: .joiner, name: "x", identity: Self.joinerIdentity, clock: { Date() })
        _ = lone.start()
        #expect(Self.failure(lone.timedOut()) == .timedOut)
    }

    @Test("Another pairing seen, a frame out of turn, and garbage all abort")
    func aborts() {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        #expect(Self.failure(s.otherPairingSeen(from: "10.0.0.5")) == .anotherPairing(from: "10.0.0.5"))
        // The message says where the other pairing was heard, made safe to print.
        #expect(PairingFailure.anotherPairing(from: "10.0.0.5").description
            == "Not paired: another pairing is running on this network (heard from 10.0.0.5); try again when it is over.")
        #expect(PairingFailure.anotherPairing(from: nil).description == "Not paired: another pairing is running on this network; try again.")
        var t = PairingMachine(role: .sharer(Fixtures.key), name: "a", identity: Self.sharerIdentity, clock: { Date() })
        if case .protocolError = Self.failure(t.received(Pairing.frame(.reveal, Array(repeating: 1, count: 64)))) {} else {
            Issue.record("a REVEAL before COMMIT must abort")
        }
        var u = PairingMachine(role: .sharer(Fixtures.key), name: "a", identity: Self.sharerIdentity, clock: { Date() })
        if case .protocolError = Self.failure(u.received([0x42, 0x54, 0x4e, 0x31])) {} else { Issue.record("garbage must abort") }
        // Bytes split anywhere are read the same.
        var (s2, j2) = Self.machines()
        let commit = Self.sent(j2.start())
        var replies: [PairingAction] = []
        for byte in commit { replies += s2.received([byte]) }
        #expect(Self.sent(replies).first == Pairing.FrameType.publicKey.rawValue)
    }

    @Test("HELLO round-trips; other bytes are not a HELLO")
    func hello() {
        let hello = Pairing.hello(port: 47790, pairingID: Self.pairingID)
        #expect(hello.count == 24)
        #expect(Pairing.parseHello(hello)?.port == 47790)
        #expect(Pairing.parseHello(hello)?.pairingID == Self.pairingID)
        #expect(Pairing.parseHello(Array(hello.dropLast())) == nil)
        #expect(Pairing.parseHello([0x42, 0x54, 0x4e, 0x31] + hello.dropFirst(4)) == nil)
        #expect(Pairing.helloVersion(hello) == 2)
        // A version-1 HELLO: recognised as a HELLO of version 1, and not answered.
        var older = hello
        older[4] = 1
        #expect(Pairing.helloVersion(older) == 1)
        #expect(Pairing.parseHello(older) == nil)
        #expect(Pairing.helloVersion(Array(older.dropLast())) == nil)
    }

    @Test("Both screens see the other's identity beside the code, and the same code binds both identities")
    func identitiesBeside() {
        var (s, j) = Self.machines()
        let commit = j.start()
        let publicFrame = s.received(Self.sent(commit))
        let joinerSide = j.received(Self.sent(publicFrame))
        #expect(joinerSide.contains { if case .showCode(_, "alice@laptop", Self.alice) = $0 { true } else { false } })
        let sharerSide = s.received(Self.sent(joinerSide))
        #expect(sharerSide.contains { if case .showCode(_, "bob@desk", Self.bob) = $0 { true } else { false } })
        // A joiner with another identity (all else fixed) gets another code.
        var other = PairingMachine(
            role: .joiner, name: "bob@desk", identity: DeviceIdentity.random(),
            privateKey: Array(Self.joinerPrivate.rawRepresentation), nonce: Self.joinerNonce, clock: { Date() })
        var s2 = Self.machines().sharer
        let (c1, c2) = Self.toCodes(&s2, &other)
        #expect(c1 == c2)
        #expect(c1 != Self.code(sharerSide))
    }

    @Test("A CONFIRM signed by another identity: the sharer aborts (ABORT 03) and sends no key")
    func wrongConfirmSignature() {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        _ = s.answered(true)
        let message = Pairing.signed(Pairing.confirmLabel, transcript: j.transcript)
        let forged = Pairing.sealedFrame([1] + DeviceIdentity.random().sign(message), key: j.keys!.joiner, counter: 0)
        let actions = s.received(forged)
        #expect(Self.failure(actions) == .identityNotProved)
        #expect(Self.sent(actions) == Pairing.frame(.abort, [3]))
        #expect(s.isDone)
        // The joiner's own signature over the same message opens the way.
        var (s2, j2) = Self.machines()
        _ = Self.toCodes(&s2, &j2)
        _ = s2.answered(true)
        let genuine = Pairing.sealedFrame([1] + Self.joinerIdentity.sign(message), key: j2.keys!.joiner, counter: 0)
        #expect(Self.sent(s2.received(genuine)).first == Pairing.FrameType.sealed.rawValue)
    }

    @Test("A KEY signed by another identity: the joiner aborts (ABORT 03) and stores nothing")
    func wrongKeySignature() {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        _ = j.answered(true)
        let message = Pairing.signed(Pairing.keyLabel, transcript: s.transcript)
        let forged = Pairing.sealedFrame(
            [2] + Fixtures.key.bytes + DeviceIdentity.random().sign(message), key: s.keys!.sharer, counter: 0)
        let actions = j.received(forged)
        #expect(Self.failure(actions) == .identityNotProved)
        #expect(Self.sent(actions) == Pairing.frame(.abort, [3]))
        #expect(Self.storedKey(actions) == nil)
    }

    @Test("A version-1 COMMIT or PUBLIC aborts with ABORT 03, naming the version; a COMMIT answered with ABORT 03 says an older sharer may be why")
    func olderVersion() {
        var sharer = Self.machines().sharer
        let v1Commit = Pairing.frame(.commit, [1] + Array(repeating: 7, count: 32) + Array("old".utf8))
        let atSharer = sharer.received(v1Commit)
        #expect(Self.failure(atSharer) == .otherVersion(1))
        #expect(Self.sent(atSharer) == Pairing.frame(.abort, [3]))
        #expect(PairingFailure.otherVersion(1).description.contains("older Baton (pairing version 1): update it"))

        var joiner = Self.machines().joiner
        _ = joiner.start()
        let v1Public = Pairing.frame(.publicKey, [1] + Array(repeating: 9, count: 64) + Array("old".utf8))
        let atJoiner = joiner.received(v1Public)
        #expect(Self.failure(atJoiner) == .otherVersion(1))
        #expect(Self.sent(atJoiner) == Pairing.frame(.abort, [3]))

        var refused = Self.machines().joiner
        _ = refused.start()
        #expect(Self.failure(refused.received(Pairing.frame(.abort, [3]))) == .commitRefused)
    }

    @Test("Two ends with one identity (one identity.key): the joiner aborts before any code")
    func sameDevice() {
        var s = PairingMachine(role: .sharer(Fixtures.key), name: "a", identity: Self.sharerIdentity, clock: { Date() })
        var j = PairingMachine(role: .joiner, name: "b", identity: Self.sharerIdentity, clock: { Date() })
        let actions = j.received(Self.sent(s.received(Self.sent(j.start()))))
        #expect(Self.failure(actions) == .sameDevice)
        #expect(Self.code(actions) == nil)
    }

    // MARK: - Golden vector

    struct Vector: Codable, Equatable {
        var groupKey, sharerPrivateKey, joinerPrivateKey, sharerNonce, joinerNonce: String
        var sharerIdentitySeed, joinerIdentitySeed, sharerPublicIdentity, joinerPublicIdentity: String
        var sharerFingerprint, joinerFingerprint: String
        var sharerName, joinerName: String
        var hello, commitment, commit, publicFrame, reveal, sharedSecret, transcriptHash: String
        var codeBytes, code, sharerKey, joinerKey: String
        var confirmSignature, keySignature, confirm, key, stored: String
        /// Section 17, "Introductions": the statements the sharer sends (what it kept, then its
        /// introduction of the joiner), their SEALED STATEMENT frames, and when they were made.
        var carolIdentitySeed, carolName: String
        var statementAt: Double
        var statements, statementFrames: [String]
        /// The joiner's introduction of the sharer, which it keeps (not sent).
        var joinerStatement: String
    }

    /// The frames in `bytes`, one after the other.
    static func frames(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var rest = bytes[...]
        while rest.count >= 3 {
            let length = Int(rest[rest.startIndex + 1]) << 8 | Int(rest[rest.startIndex + 2])
            out.append(Array(rest.prefix(3 + length)))
            rest = rest.dropFirst(3 + length)
        }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static let file = GoldenVectorTests.folder.appendingPathComponent("pair.json")

    static func make() -> Vector {
        var (s, j) = machines()
        let commit = sent(j.start())
        let publicFrame = sent(s.received(commit))
        let joinerSide = j.received(publicFrame)
        let reveal = sent(joinerSide)
        _ = s.received(reveal)
        _ = s.answered(true)
        let confirm = sent(j.answered(true))
        let last = frames(sent(s.received(confirm)))
        let key = last.last!
        let atJoiner = j.received(last.flatMap { $0 })
        let stored = sent(j.stored())
        let sentStatements = sharerStatements + [
            Statement(.introduce(identity: bob, name: "bob@desk"), by: sharerIdentity, at: statementTime).bytes
        ]
        let secret = try! sharerPrivate.sharedSecretFromKeyAgreement(with: joinerPrivate.publicKey).withUnsafeBytes { Array($0) }
        let transcript = commit + publicFrame + reveal
        let keys = Pairing.Keys(sharedSecret: secret, transcript: transcript)
        let codeBytes = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret), salt: Array(SHA256.hash(data: transcript)),
            info: Array("baton pair v2 code".utf8), outputByteCount: 8
        ).withUnsafeBytes { Array($0) }
        return Vector(
            groupKey: Fixtures.key.base64, sharerPrivateKey: hex(Array(sharerPrivate.rawRepresentation)),
            joinerPrivateKey: hex(Array(joinerPrivate.rawRepresentation)), sharerNonce: hex(sharerNonce),
            joinerNonce: hex(joinerNonce), sharerIdentitySeed: hex(sharerIdentity.seed),
            joinerIdentitySeed: hex(joinerIdentity.seed), sharerPublicIdentity: hex(alice.bytes),
            joinerPublicIdentity: hex(bob.bytes), sharerFingerprint: alice.deviceID.fingerprint,
            joinerFingerprint: bob.deviceID.fingerprint, sharerName: "alice@laptop", joinerName: "bob@desk",
            hello: hex(Pairing.hello(port: 47790, pairingID: pairingID)),
            commitment: hex(Pairing.commitment(
                publicKey: Array(joinerPrivate.publicKey.rawRepresentation), nonce: joinerNonce, identity: bob)),
            commit: hex(commit), publicFrame: hex(publicFrame), reveal: hex(reveal), sharedSecret: hex(secret),
            transcriptHash: hex(Array(SHA256.hash(data: transcript))), codeBytes: hex(codeBytes), code: keys.code,
            sharerKey: hex(keys.sharer), joinerKey: hex(keys.joiner),
            confirmSignature: hex(joinerIdentity.sign(Pairing.signed(Pairing.confirmLabel, transcript: transcript))),
            keySignature: hex(sharerIdentity.sign(Pairing.signed(Pairing.keyLabel, transcript: transcript))),
            confirm: hex(confirm), key: hex(key), stored: hex(stored),
            carolIdentitySeed: hex(carolIdentity.seed), carolName: "carol@vm",
            statementAt: statementTime.timeIntervalSince1970, statements: sentStatements.map(hex),
            statementFrames: last.dropLast().map(hex), joinerStatement: hex(storedStatements(atJoiner)!.last!))
    }

    // MARK: - Statements (section 17, "Introductions")

    /// Runs both machines to the sharer's last frames: (sharer, joiner, those frames).
    static func toKey(sharerStatements statements: [[UInt8]]? = nil) -> (PairingMachine, PairingMachine, [[UInt8]]) {
        var (s, j) = machines()
        if let statements {
            s = PairingMachine(
                role: .sharer(Fixtures.key), name: "alice@laptop", identity: sharerIdentity, statements: statements,
                privateKey: Array(sharerPrivate.rawRepresentation), nonce: sharerNonce, clock: { statementTime })
        }
        _ = toCodes(&s, &j)
        _ = s.answered(true)
        let last = frames(sent(s.received(sent(j.answered(true)))))
        return (s, j, last)
    }

    @Test("The sharer sends what it keeps and its introduction of the joiner, one STATEMENT each, before KEY; both keep the introductions")
    func statementsBeforeKey() throws {
        var (s, j, last) = Self.toKey()
        #expect(last.count == 3)
        let carol = Self.sharerStatements[0]
        let introduceBob = try Statement(parsing: try #require(Self.storedStatements(j.received(last.flatMap { $0 }))?[1]))
        #expect(introduceBob.content == .introduce(identity: Self.bob, name: "bob@desk"))
        #expect(introduceBob.isSigned(by: Self.alice) && introduceBob.at == Self.statementTime)
        var (_, j2, _) = Self.toKey()
        let kept = try #require(Self.storedStatements(j2.received(last.flatMap { $0 })))
        #expect(kept.count == 3 && kept[0] == carol && kept[1] == introduceBob.bytes)
        let own = try Statement(parsing: kept[2])
        #expect(own.content == .introduce(identity: Self.alice, name: "alice@laptop") && own.isSigned(by: Self.bob))
        // The joiner, with the sharer as root, now lists carol, introduced by the sharer.
        var roster = DeviceRoster(own: Self.bob, name: "bob@desk", paired: [(Self.alice, "alice@laptop")])
        roster.take(all: kept)
        #expect(roster.listed[Self.carolIdentity.publicIdentity.deviceID.bytes]?.introducedBy == Self.alice.deviceID.bytes)
        // The sharer keeps its introduction of the joiner once STORED came.
        let done = s.received(Self.sent(j2.stored()))
        guard case .paired(_, _, let atSharer) = done.last else { Issue.record("not paired: \(done)"); return }
        #expect(atSharer == [introduceBob.bytes])
    }

    @Test("A STATEMENT after KEY aborts (ABORT 03) and no key is handed to the driver")
    func statementAfterKey() {
        var (s, j, last) = Self.toKey()
        let extra = Pairing.sealedFrame([4] + Self.sharerStatements[0], key: s.keys!.sharer, counter: UInt64(last.count))
        let actions = j.received(last.flatMap { $0 } + extra)
        #expect(Self.storedKey(actions) == nil)
        if case .protocolError = Self.failure(actions) {} else { Issue.record("expected a protocol error, got \(actions)") }
        #expect(Self.sent(actions) == Pairing.frame(.abort, [3]))
        // Half a frame after KEY is no better.
        var (_, j2, last2) = Self.toKey()
        let halves = j2.received(last2.flatMap { $0 } + Array(extra.prefix(10)))
        #expect(Self.storedKey(halves) == nil && Self.failure(halves) != nil)
    }

    @Test("A STATEMENT before the joiner said yes aborts; one over 1,024 bytes aborts")
    func statementOutOfTurn() {
        var (s, j) = Self.machines()
        _ = Self.toCodes(&s, &j)
        let early = Pairing.sealedFrame([4] + Self.sharerStatements[0], key: s.keys!.sharer, counter: 0)
        if case .protocolError = Self.failure(j.received(early)) {} else { Issue.record("a STATEMENT before CONFIRM must abort") }
        var (s2, j2) = Self.machines()
        _ = Self.toCodes(&s2, &j2)
        _ = j2.answered(true)
        let large = Pairing.sealedFrame([4] + Array(repeating: 7, count: 1_025), key: s2.keys!.sharer, counter: 0)
        #expect(large.count == 3 + 1 + 1_025 + 16)
        if case .protocolError = Self.failure(j2.received(large)) {} else { Issue.record("a statement of 1,025 bytes must abort") }
        // The frame limit takes a whole statement of 1,024 bytes.
        #expect(Pairing.maximumBody == 1 + 1_024 + 16)
    }

    @Test("A statement that does not verify, or whose issuer the joiner cannot list, is not kept; the pairing goes on")
    func badStatementNotKept() throws {
        var forged = Self.sharerStatements[0]
        forged[5] ^= 0x01  // the signature no longer verifies
        let stranger = DeviceIdentity.random()
        let unknownIssuer = Statement(.remove(device: Array(repeating: 9, count: 16)), by: stranger, at: Self.statementTime).bytes
        var (_, j, last) = Self.toKey(sharerStatements: [forged, unknownIssuer])
        #expect(last.count == 4)
        let kept = try #require(Self.storedStatements(j.received(last.flatMap { $0 })))
        #expect(!kept.contains(forged) && !kept.contains(unknownIssuer))
        #expect(kept.count == 2)  // the sharer's introduction of the joiner, and the joiner's of the sharer
        #expect(Self.paired(j.stored()) != nil)
    }

    @Test("The fixed pairing gives the committed bytes (Vectors/golden/pair.json)")
    func vector() throws {
        let made = Self.make()
        _ = try committedGolden(made, file: Self.file)
    }
}
