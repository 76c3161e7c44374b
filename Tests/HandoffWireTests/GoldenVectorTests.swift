import Foundation
import Crypto
import PropertyList
import Testing
@testable import Handoff
@testable import HandoffWire

/// Fixed inputs → exact bytes, for each of the six version 3 datagram kinds. The files in
/// `Vectors/golden` are the contract other implementations test against (docs/PROTOCOL.md,
/// section 12). `BATON_WRITE_VECTORS=1 swift test --filter GoldenVector` rewrites them (only
/// when the protocol deliberately changes).
@Suite("Golden vectors")
struct GoldenVectorTests {
    struct Vector: Codable, Equatable {
        var kind: String
        var groupKey: String
        /// Hex of the group key's key id.
        var keyID: String
        /// Hex of the sending device's identity seed.
        var identitySeed: String
        /// Hex of its public identity (signing ‖ agreement public keys).
        var publicIdentity: String
        var senderID: String
        /// Hex of the sender key (HKDF info `v3 datagram` ‖ sender id).
        var senderKey: String
        var sequence: UInt64
        var sentAt: Double
        /// Hex of the canonical bplist payload.
        var plaintext: String
        /// Hex of the Ed25519 signature sealed before the payload.
        var signature: String
        var datagram: String
        /// OFFER only: hex of the state encoding its `size` and `digest` describe.
        var state: String?
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Vectors/golden")

    static func makeRecord(peer: PeerInfo) -> ActivityRecord {
        ActivityRecord(
            activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11", activityType: "dev.baton.editing", revision: 3,
            savedAt: Fixtures.sentAt.addingTimeInterval(-0.5),
            userInfo: ["text": "héllo\n你好 👋", "cursorLine": 1, "cursorColumn": 3, "fileName": "notes.txt"],
            title: "Editing notes.txt", requiredUserInfoKeys: ["text"], keywords: ["notes"],
            expiresAt: Fixtures.sentAt.addingTimeInterval(3600), peer: peer)
    }

    /// The record of the version 3 vectors: the same, from a peer speaking protocol 3.
    static let record3 = makeRecord(peer: Fixtures.peer3)

    /// The state encoding of `record3`: its ANNOUNCE payload with `sentAt` = `savedAt`.
    static let state = DatagramCodec.plaintext(.announce(record3), sentAt: record3.savedAt)

    /// The same record offered for fetching, with the summary the sender's rule keeps at the
    /// OFFER's own size (the text is left out as the longest entry; port 47800).
    static var offer: HandoffMessage {
        var summary = record3
        summary.userInfo = ["cursorLine": 1, "cursorColumn": 3, "fileName": "notes.txt"]
        return .offer(summary, state: StateOffer(size: state.count, digest: Array(SHA256.hash(data: state)), port: 47800))
    }

    static let messages3: [(name: String, message: HandoffMessage)] = [
        ("announce", .announce(record3)),
        ("withdraw", .withdraw(activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11")),
        ("query", .query(types: ["dev.baton.counter"])),
        ("continued", .continued(
            activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11",
            peer: PeerInfo(name: "bob@desk", host: "desk.local", app: "baton", appVersion: "1.0.0", protocolVersion: 3))),
        ("offer", offer),
    ]

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static func unhex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            out.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    static var codec: DatagramCodec { DatagramCodec(keys: GroupKeys(current: Fixtures.key)) }

    static func make(_ name: String, _ message: HandoffMessage, sequence: UInt64) throws -> Vector {
        let datagram = try codec.encode(
            message, identity: Fixtures.identity, senderID: Fixtures.sender3, sequence: sequence, sentAt: Fixtures.sentAt)
        let plaintext = DatagramCodec.plaintext(message, sentAt: Fixtures.sentAt)
        let header = Array(datagram.prefix(DatagramHeader.length))
        return Vector(
            kind: name, groupKey: Fixtures.key.base64, keyID: hex(Fixtures.key.keyID.bytes),
            identitySeed: hex(Fixtures.identity.seed), publicIdentity: hex(Fixtures.identity.publicIdentity.bytes),
            senderID: hex(Fixtures.sender3.bytes),
            senderKey: hex(SenderKeys.derive(sender: Fixtures.sender3, groupKey: Fixtures.key)), sequence: sequence,
            sentAt: Fixtures.sentAt.timeIntervalSince1970, plaintext: hex(plaintext),
            signature: hex(Fixtures.identity.sign(OpenedDatagram.signedBytes(header: header, payload: plaintext))),
            datagram: hex(datagram), state: message.kind == .offer ? hex(state) : nil)
    }

    /// The one listed device of the vectors.
    static func listed(_ tag: DeviceTag) -> PublicIdentity? {
        tag == Fixtures.sender3.tag ? Fixtures.identity.publicIdentity : nil
    }

    @Test("Encoding fixed inputs gives the committed bytes, and the committed bytes decode to the message",
          arguments: Array(messages3.enumerated()))
    func vector(_ entry: (offset: Int, element: (name: String, message: HandoffMessage))) throws {
        let (name, message) = entry.element
        let sequence = UInt64(entry.offset + 1)
        let made = try Self.make(name, message, sequence: sequence)
        let file = Self.folder.appendingPathComponent("\(name).json")
        let committed = try committedGolden(made, file: file)

        let key = try GroupKey(base64: committed.groupKey)
        let bytes = Self.unhex(committed.datagram)
        let decoded = try DatagramCodec(keys: GroupKeys(current: key)).decode(
            bytes, now: Date(timeIntervalSince1970: committed.sentAt), identity: Self.listed)
        #expect(decoded.message == message)
        #expect(decoded.header.kind == message.kind)
        #expect(decoded.header.sequence == committed.sequence)
        #expect(Self.hex(decoded.header.senderID.bytes) == committed.senderID)
        #expect(Array(bytes.prefix(4)) == Array("BTN3".utf8))
        #expect(bytes.count == DatagramHeader.overhead + committed.plaintext.count / 2)
    }

    @Test("The OFFER vector's summary is what the sender's rule keeps at its size, and its state reads back as the record")
    func offerSummaryAndState() throws {
        guard case .offer(let described, let state) = Self.offer else { Issue.record("not an offer"); return }
        let size = try Self.make("offer", Self.offer, sequence: 5).datagram.count / 2
        let limit = size
        // At exactly its size the rule leaves out the longest entry (the text) and keeps the rest;
        // a byte less and the next longest goes too.
        #expect(try HandoffCore.offerMessage(for: Self.record3, state: state, limit: limit) == Self.offer)
        guard case .offer(let smaller, _) = try HandoffCore.offerMessage(for: Self.record3, state: state, limit: limit - 1)
        else { Issue.record("not an offer"); return }
        #expect(Set(smaller.userInfo.keys) == ["cursorLine", "fileName"])
        #expect(Set(described.userInfo.keys) == ["cursorLine", "cursorColumn", "fileName"])

        let root = try BinaryPropertyListReader().read(Self.state)
        guard case .dictionary(let payload) = root else { Issue.record("state is not a dictionary"); return }
        let (message, sentAt) = try HandoffMessage.decode(kind: .announce, payload: payload)
        #expect(message == .announce(Self.record3))
        #expect(sentAt == Self.record3.savedAt)
    }
}
