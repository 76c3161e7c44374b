import Crypto
import Handoff
import HandoffWire

/// The MQTT topics of one group on a relay, derived from the group key so that they name
/// neither the group nor an activity type (docs/PROTOCOL.md section 16, "Topics").
///
/// topic key = HKDF-SHA256(IKM = the group key, salt = `baton-handoff`, info = `v2 relay topics`,
/// 32 bytes); the root is `baton/` and the hex of the first 16 bytes of
/// HMAC-SHA256(topic key, `root`); a sender's topic id is the hex of the first 8 bytes of
/// HMAC-SHA256(topic key, its 16-byte sender id). Machines with other keys use other topics.
public struct RelayTopics: Equatable, Sendable {
    static let salt = Array("baton-handoff".utf8)
    static let info = Array("v2 relay topics".utf8)

    /// The 32 bytes of the topic key (swift-crypto's `SymmetricKey` is not `Sendable`).
    private let topicKey: [UInt8]
    /// `baton/` and 32 lower-case hex digits.
    public let root: String

    public init(groupKey: GroupKey) {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: groupKey.bytes), salt: Self.salt, info: Self.info, outputByteCount: 32)
        topicKey = key.withUnsafeBytes { Array($0) }
        root = "baton/" + PlainText.hex(HMAC<SHA256>.authenticationCode(for: Array("root".utf8), using: key).prefix(16))
    }

    public static func == (lhs: RelayTopics, rhs: RelayTopics) -> Bool { lhs.root == rhs.root }

    /// 16 lower-case hex digits naming `sender` on the relay.
    public func senderTopic(_ sender: SenderID) -> String {
        PlainText.hex(HMAC<SHA256>.authenticationCode(for: sender.bytes, using: SymmetricKey(data: topicKey)).prefix(8))
    }

    /// The sender topic of the datagram's clear sender id (bytes 10..<26), or nil for bytes too
    /// short to be a datagram.
    public func senderTopic(ofDatagram bytes: [UInt8]) -> String? {
        guard let sender = Self.senderID(ofDatagram: bytes) else { return nil }
        return senderTopic(sender)
    }

    /// The clear sender id of a datagram, or nil for bytes too short to be one.
    public static func senderID(ofDatagram bytes: [UInt8]) -> SenderID? {
        guard bytes.count >= DatagramHeader.minimumDatagramLength else { return nil }
        return SenderID(bytes: Array(bytes[DatagramHeader.senderIDRange]))
    }

    /// Every datagram that is not a peer's current activity: `<root>/d`.
    public var datagrams: String { root + "/d" }

    /// The retained current activity (ANNOUNCE or OFFER) of one sender: `<root>/a/<sender>`.
    public func activity(_ senderTopic: String) -> String { root + "/a/" + senderTopic }

    /// The subscription to every sender's current activity: `<root>/a/+`.
    public var activities: String { root + "/a/+" }

    /// Client-to-server bytes of one state-stream connection: `<root>/s/<server>/<connection>/c`.
    public func streamToServer(server: String, connection: String) -> String {
        root + "/s/" + server + "/" + connection + "/c"
    }

    /// Server-to-client bytes of one state-stream connection: `<root>/s/<server>/<connection>/s`.
    public func streamToClient(server: String, connection: String) -> String {
        root + "/s/" + server + "/" + connection + "/s"
    }

    /// The subscription a server makes for every connection to it: `<root>/s/<server>/+/c`.
    public func streamsToServer(_ server: String) -> String { root + "/s/" + server + "/+/c" }

    /// What a topic of this group is, or nil for a topic outside it.
    public enum Parsed: Equatable, Sendable {
        case datagrams
        case activity(sender: String)
        case streamToServer(server: String, connection: String)
        case streamToClient(server: String, connection: String)
    }

    public func parse(_ topic: String) -> Parsed? {
        guard topic.hasPrefix(root + "/") else { return nil }
        let levels = topic.dropFirst(root.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        switch levels.count {
        case 1 where levels[0] == "d":
            return .datagrams
        case 2 where levels[0] == "a" && Self.isTopicID(levels[1], length: 16):
            return .activity(sender: String(levels[1]))
        case 4 where levels[0] == "s" && Self.isTopicID(levels[1], length: 16) && Self.isTopicID(levels[2], length: 16):
            let server = String(levels[1])
            let connection = String(levels[2])
            switch levels[3] {
            case "c": return .streamToServer(server: server, connection: connection)
            case "s": return .streamToClient(server: server, connection: connection)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// A fresh connection id: 16 hex digits of 8 random bytes.
    public static func randomConnectionID() -> String {
        var generator = SystemRandomNumberGenerator()
        return PlainText.hex((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func isTopicID(_ text: Substring, length: Int) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
