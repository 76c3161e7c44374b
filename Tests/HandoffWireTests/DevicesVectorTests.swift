import Foundation
import Testing
@testable import HandoffWire

/// `devices.json`: a DEVICES datagram from the vectors' device (seed `00 01 … 1f`) carrying an
/// `introduce` of bob (seed `20 … 3f`), a `remove` of carol (seed `40 … 5f`) and a `key` statement
/// giving bob the group key `60 61 … 7f`, sealed with the ephemeral private key `80 81 … 9f`
/// (docs/PROTOCOL.md, sections 12 and 17).
@Suite("Golden vectors: DEVICES")
struct DevicesVectorTests {
    struct Device: Codable, Equatable {
        var seed: String
        var publicIdentity: String
        var deviceID: String
    }

    struct NewKey: Codable, Equatable {
        var groupKey: String
        var keyID: String
        var to: String
        var ephemeralPrivateKey: String
        var ephemeral: String
        var sealed: String
    }

    struct SignedStatement: Codable, Equatable {
        var statement: String
        var body: String
        var signature: String
        var bytes: String
    }

    struct Vector: Codable, Equatable {
        var kind: String
        var groupKey: String
        var keyID: String
        var identitySeed: String
        var publicIdentity: String
        var deviceID: String
        var senderID: String
        var senderKey: String
        var sequence: UInt64
        var sentAt: Double
        /// Unix seconds of every statement's `at`.
        var at: Double
        var introduced: Device
        var introducedName: String
        var removed: Device
        var newKey: NewKey
        var statements: [SignedStatement]
        var digest: String
        var plaintext: String
        var signature: String
        var datagram: String
    }

    static let hex = GoldenVectorTests.hex
    static let unhex = GoldenVectorTests.unhex
    static let file = GoldenVectorTests.folder.appendingPathComponent("devices.json")
    static let at = Fixtures.sentAt.addingTimeInterval(-1)
    static let newKey = GroupKey(bytes: Array(0x60..<0x80))!
    static let ephemeralPrivateKey: [UInt8] = Array(0x80..<0xA0)
    static let sequence: UInt64 = 6

    static var statements: [Statement] {
        [
            Statement(.introduce(identity: Fixtures.bob.publicIdentity, name: "bob@desk"), by: Fixtures.identity, at: at),
            Statement(.remove(device: Fixtures.carol.publicIdentity.deviceID.bytes), by: Fixtures.identity, at: at),
            Statement.key(
                newKey, for: Fixtures.bob.publicIdentity, by: Fixtures.identity, at: at,
                ephemeralPrivateKey: ephemeralPrivateKey),
        ]
    }

    static func device(_ identity: DeviceIdentity) -> Device {
        Device(seed: hex(identity.seed), publicIdentity: hex(identity.publicIdentity.bytes), deviceID: hex(identity.publicIdentity.deviceID.bytes))
    }

    static func make() throws -> Vector {
        let statements = statements
        let digest = Statement.setDigest(statements.map(\.bytes))
        let message = HandoffMessage.devices(statements: statements.map(\.bytes), digest: digest)
        let datagram = try GoldenVectorTests.codec.encode(
            message, identity: Fixtures.identity, senderID: Fixtures.sender3, sequence: sequence, sentAt: Fixtures.sentAt)
        let plaintext = DatagramCodec.plaintext(message, sentAt: Fixtures.sentAt)
        guard case .key(let to, let keyID, let ephemeral, let sealed) = statements[2].content else {
            preconditionFailure("the third statement is the key statement")
        }
        return Vector(
            kind: "devices", groupKey: Fixtures.key.base64, keyID: hex(Fixtures.key.keyID.bytes),
            identitySeed: hex(Fixtures.identity.seed), publicIdentity: hex(Fixtures.identity.publicIdentity.bytes),
            deviceID: hex(Fixtures.identity.publicIdentity.deviceID.bytes), senderID: hex(Fixtures.sender3.bytes),
            senderKey: hex(SenderKeys.derive(sender: Fixtures.sender3, groupKey: Fixtures.key)), sequence: sequence,
            sentAt: Fixtures.sentAt.timeIntervalSince1970, at: at.timeIntervalSince1970,
            introduced: device(Fixtures.bob), introducedName: "bob@desk", removed: device(Fixtures.carol),
            newKey: NewKey(
                groupKey: newKey.base64, keyID: hex(keyID.bytes), to: hex(to), ephemeralPrivateKey: hex(ephemeralPrivateKey),
                ephemeral: hex(ephemeral), sealed: hex(sealed)),
            statements: statements.map {
                SignedStatement(statement: $0.content.name, body: hex($0.body), signature: hex($0.signature), bytes: hex($0.bytes))
            },
            digest: hex(digest), plaintext: hex(plaintext),
            signature: hex(Fixtures.identity.sign(OpenedDatagram.signedBytes(header: Array(datagram.prefix(DatagramHeader.length)), payload: plaintext))),
            datagram: hex(datagram))
    }

    @Test("The DEVICES vector is the committed bytes, and bob's list takes all three statements from it")
    func vector() throws {
        let committed = try committedGolden(try Self.make(), file: Self.file)
        let bytes = Self.unhex(committed.datagram)
        // Bob paired with the sender; carol was listed by pairing too, until the removal.
        var bob = DeviceRoster(
            own: Fixtures.bob.publicIdentity, name: "bob@desk",
            paired: [(Fixtures.identity.publicIdentity, "alice@laptop"), (Fixtures.carol.publicIdentity, "carol@attic")])
        let decoded = try DatagramCodec(keys: GroupKeys(current: Fixtures.key)).decode(
            bytes, now: Date(timeIntervalSince1970: committed.sentAt), identity: bob.identity(for:))
        guard case .devices(let statements, let digest) = decoded.message else { Issue.record("not DEVICES"); return }
        #expect(statements.count == 3)
        #expect(bob.take(all: statements) == 3)
        #expect(bob.digest == digest)
        #expect(bob.identity(for: DeviceTag(Fixtures.carol.publicIdentity.deviceID)) == nil)
        #expect(bob.removed == [Fixtures.carol.publicIdentity.deviceID.bytes])
        #expect(bob.keyToSwitchTo(current: Fixtures.key.keyID, identity: Fixtures.bob) == Self.newKey)
        // Nobody else opens bob's key.
        guard case .key(_, let keyID, let ephemeral, let sealed) = try Statement(parsing: statements[2]).content else {
            Issue.record("not a key statement"); return
        }
        #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: keyID, with: Fixtures.carol) == nil)
        #expect(GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: keyID, with: Fixtures.bob) == Self.newKey)
    }
}
