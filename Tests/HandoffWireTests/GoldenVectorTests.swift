import Foundation
import Crypto
import PropertyList
import Testing
@testable import Handoff
@testable import HandoffWire

/// Fixed inputs → exact bytes, for each of the five kinds. The files in `Vectors/golden`
/// are the contract other implementations test against. `BATON_WRITE_VECTORS=1 swift test
/// --filter GoldenVector` rewrites them (only when the protocol deliberately changes).
@Suite("Golden vectors")
struct GoldenVectorTests {
    struct Vector: Codable, Equatable {
        var kind: String
        var groupKey: String
        var senderID: String
        var sequence: UInt64
        var nonce: String
        var sentAt: Double
        var plaintext: String
        var datagram: String
        /// OFFER only: hex of the state encoding its `size` and `digest` describe.
        var state: String?
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Vectors/golden")

    static let record = ActivityRecord(
        activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11", activityType: "dev.baton.editing", revision: 3,
        savedAt: Fixtures.sentAt.addingTimeInterval(-0.5),
        userInfo: ["text": "héllo\n你好 👋", "cursorLine": 1, "cursorColumn": 3, "fileName": "notes.txt"],
        title: "Editing notes.txt", requiredUserInfoKeys: ["text"], keywords: ["notes"],
        expiresAt: Fixtures.sentAt.addingTimeInterval(3600), peer: Fixtures.peer)

    /// The state encoding of `record`: its ANNOUNCE payload with `sentAt` = `savedAt`.
    static let state = DatagramCodecV2.plaintext(.announce(record), sentAt: record.savedAt)

    /// The same record offered for fetching, as a sender with a 200-byte datagram limit would
    /// (the text is left out of the summary as too long for it; port 47800).
    static var offer: HandoffMessage {
        var summary = record
        summary.userInfo = ["cursorLine": 1, "cursorColumn": 3, "fileName": "notes.txt"]
        return .offer(summary, state: StateOffer(size: state.count, digest: Array(SHA256.hash(data: state)), port: 47800))
    }

    static let messages: [(name: String, message: HandoffMessage)] = [
        ("announce", .announce(record)),
        ("withdraw", .withdraw(activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11")),
        ("query", .query(types: ["dev.baton.counter"])),
        ("continued", .continued(
            activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11",
            peer: PeerInfo(name: "bob@desk", host: "desk.local", app: "baton", appVersion: "1.0.0"))),
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

    static func make(_ name: String, _ message: HandoffMessage, sequence: UInt64) throws -> Vector {
        let codec = DatagramCodecV2(groupKey: Fixtures.key)
        let datagram = try codec.encode(
            message, senderID: Fixtures.sender, sequence: sequence, sentAt: Fixtures.sentAt, nonce: Fixtures.nonce)
        return Vector(
            kind: name, groupKey: Fixtures.key.base64, senderID: hex(Fixtures.sender.bytes), sequence: sequence,
            nonce: hex(Fixtures.nonce), sentAt: Fixtures.sentAt.timeIntervalSince1970,
            plaintext: hex(DatagramCodecV2.plaintext(message, sentAt: Fixtures.sentAt)), datagram: hex(datagram),
            state: message.kind == .offer ? hex(state) : nil)
    }

    @Test("Encoding fixed inputs gives the committed bytes, and the committed bytes decode to the message",
          arguments: Array(messages.enumerated()))
    func vector(_ entry: (offset: Int, element: (name: String, message: HandoffMessage))) throws {
        let (name, message) = entry.element
        let sequence = UInt64(entry.offset + 1)
        let made = try Self.make(name, message, sequence: sequence)
        let file = Self.folder.appendingPathComponent("\(name).json")
        let committed = try committedGolden(made, file: file)

        let key = try GroupKey(base64: committed.groupKey)
        let decoded = try DatagramCodecV2(groupKey: key).decode(
            Self.unhex(committed.datagram), now: Date(timeIntervalSince1970: committed.sentAt))
        #expect(decoded.message == message)
        #expect(decoded.header.kind == message.kind)
        #expect(decoded.header.sequence == committed.sequence)
        #expect(Self.hex(decoded.header.senderID.bytes) == committed.senderID)
        #expect(Array(Self.unhex(committed.datagram).prefix(4)) == Array("BTN1".utf8))
    }

    @Test("The OFFER vector's summary is what the sender's rule keeps at its size, and its state reads back as the record")
    func offerSummaryAndState() throws {
        guard case .offer(let described, let state) = Self.offer else { Issue.record("not an offer"); return }
        let size = try Self.make("offer", Self.offer, sequence: 5).datagram.count / 2
        // At exactly its size the rule leaves out the longest entry (the text) and keeps the rest;
        // a byte less and the next longest goes too.
        #expect(try HandoffCore.offerMessage(for: Self.record, state: state, limit: size) == Self.offer)
        guard case .offer(let smaller, _) = try HandoffCore.offerMessage(for: Self.record, state: state, limit: size - 1)
        else { Issue.record("not an offer"); return }
        #expect(Set(smaller.userInfo.keys) == ["cursorLine", "fileName"])
        #expect(Set(described.userInfo.keys) == ["cursorLine", "cursorColumn", "fileName"])

        let root = try BinaryPropertyListReader().read(Self.state)
        guard case .dictionary(let payload) = root else { Issue.record("state is not a dictionary"); return }
        let (message, sentAt) = try HandoffMessage.decode(kind: .announce, payload: payload)
        #expect(message == .announce(Self.record))
        #expect(sentAt == Self.record.savedAt)
    }
}
