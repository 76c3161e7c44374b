import Foundation

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

    /// True when `expiresAt` is set and not after `date`.
    public func isExpired(at date: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= date
    }
}
