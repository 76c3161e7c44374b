import FoundationEssentials

/// A continuable activity a peer offers, as the nearby list and the hint line show it.
public struct NearbyItem: Equatable, Sendable, Identifiable {
    /// The activity's ID (what `AppCommand.continueActivity(id:)` names).
    public var id: String
    /// Its activity type, e.g. `dev.baton.counter`.
    public var activityType: String
    /// What a person sees, e.g. "Counter: 5".
    public var title: String
    /// Who offers it, e.g. `bob@desk`.
    public var peerName: String
    /// When the peer saved this revision (by the peer's clock).
    public var savedAt: Date
    /// When this peer last heard it (by its own clock).
    public var lastHeard: Date
    /// The record's size in bytes when it is too large for a datagram and is fetched when
    /// continued; nil for a record the announcement carried whole.
    public var stateSize: Int?

    /// An item with every field given.
    public init(
        id: String, activityType: String, title: String, peerName: String, savedAt: Date, lastHeard: Date,
        stateSize: Int? = nil
    ) {
        self.id = id
        self.activityType = activityType
        self.title = title
        self.peerName = peerName
        self.savedAt = savedAt
        self.lastHeard = lastHeard
        self.stateSize = stateSize
    }

    /// How long ago the peer saved it at `now`: "just now", "3s ago", "2m ago", "1h ago", "2d ago".
    public func age(at now: Date) -> String {
        RelativeAge.describe(seconds: now.timeIntervalSince(savedAt))
    }
}
