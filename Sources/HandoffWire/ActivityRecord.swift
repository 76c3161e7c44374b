import FoundationEssentials
import PropertyList

/// An activity as it travels in an ANNOUNCE: a snapshot, with no delegate or responder.
public struct ActivityRecord: Equatable, Sendable {
    /// A UUID string naming the activity for its whole life.
    public var activityID: String
    public var activityType: String
    /// +1 on every save, starting at 1.
    public var revision: Int
    public var savedAt: Date
    public var userInfo: [String: PropertyListValue]
    public var title: String?
    public var requiredUserInfoKeys: [String]?
    public var webpageURL: String?
    public var keywords: [String]?
    public var expiresAt: Date?
    public var peer: PeerInfo
    /// The TCP port on which the source takes continuation streams for this activity
    /// (docs/PROTOCOL.md section 5, `continuationPort`); nil: it takes none.
    public var continuationPort: Int?

    public init(
        activityID: String, activityType: String, revision: Int, savedAt: Date,
        userInfo: [String: PropertyListValue], title: String? = nil, requiredUserInfoKeys: [String]? = nil,
        webpageURL: String? = nil, keywords: [String]? = nil, expiresAt: Date? = nil, peer: PeerInfo
    ) {
        self.activityID = activityID
        self.activityType = activityType
        self.revision = revision
        self.savedAt = savedAt
        self.userInfo = userInfo
        self.title = title
        self.requiredUserInfoKeys = requiredUserInfoKeys
        self.webpageURL = webpageURL
        self.keywords = keywords
        self.expiresAt = expiresAt
        self.peer = peer
    }

    /// Whether `id` is a UUID string: 36 characters, hexadecimal digits in either case in
    /// groups of 8-4-4-4-12 separated by `-`. Baton writes upper case.
    public static func isValidActivityID(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard utf8.count == 36 else { return false }
        var index = 0
        for byte in utf8 {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
                    break
                default:
                    return false
                }
            }
            index += 1
        }
        return true
    }

    /// Reverse-DNS: at least two dot-separated labels of letters, digits, `-` and `_`.
    /// One pass over the UTF-8 bytes: every received ANNOUNCE is checked with it.
    public static func isValidActivityType(_ type: String) -> Bool {
        let utf8 = type.utf8
        guard utf8.count <= 255 else { return false }
        var labels = 1
        var labelLength = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "."):
                guard labelLength > 0 else { return false }
                labels += 1
                labelLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                labelLength += 1
            default:
                return false
            }
        }
        return labels >= 2 && labelLength > 0
    }

    /// Whether `url` is an absolute `http` or `https` URL with a host, as ``UserActivity/setWebpageURL(_:)`` requires.
    public static func isValidWebpageURL(_ url: String) -> Bool {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && !(parsed.host ?? "").isEmpty
    }

    /// True when `expiresAt` is set and not after `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }
}
