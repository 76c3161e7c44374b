import FoundationEssentials
import PropertyList
import HandoffWire

/// What the user is doing, in a form another peer can continue: a typed, titled userInfo.
///
/// Modelled on NSUserActivity. Changing the title, userInfo or other published properties
/// marks the activity as needing a save; the `ActivityCenter` then runs the three hooks
/// (`userActivityWillSave`, `updateUserActivityState`, `didUpdate`) and publishes it while
/// it is current. One activity is current per center; becoming current replaces the previous one.
@MainActor
public final class UserActivity {
    /// Reverse-DNS type, declared in the registry.
    public let activityType: String
    /// A UUID string that names this activity for its whole life.
    public let activityID: String
    /// +1 on every successful save, starting at 1; 0 before the first.
    public internal(set) var revision: Int
    /// When the last successful save happened.
    public internal(set) var savedAt: Date?
    /// Who published it, for activities received from a peer.
    public internal(set) var peer: PeerInfo?

    public var title: String? { didSet { markChanged() } }
    /// The state to continue from; property-list values only.
    public var userInfo: [String: PropertyListValue] = [:] { didSet { markChanged() } }
    /// Keys that must be present for the activity to be continued.
    public var requiredUserInfoKeys: Set<String> = [] { didSet { markChanged() } }
    public var keywords: Set<String> = [] { didSet { markChanged() } }
    /// Not continuable after this time.
    public var expirationDate: Date? { didSet { markChanged() } }
    /// Whether a listed device may open a continuation stream to this activity while this
    /// program holds it (`ActivityCenter.openContinuationStream`); the delegate's
    /// `userActivity(_:didReceive:)` gets the other end. Published as `continuationPort`.
    public var supportsContinuationStreams = false { didSet { markChanged() } }
    /// Where a continued activity came from: what `continuationStream()` opens to.
    var continuedFrom: NearbyActivity?
    /// Whether peers see it; when false it is saved locally but not published.
    public var isEligibleForHandoff = true { didSet { center?.eligibilityChanged(self) } }
    /// Where to continue when no app can: http or https only (`setWebpageURL`).
    public private(set) var webpageURL: URL?

    public weak var delegate: (any UserActivityDelegate)?
    /// The responder that owns this activity's state.
    public weak var responder: (any UserActivityResponder)?

    /// Set to true to have the activity saved soon; the center clears it after saving.
    public var needsSave = false {
        didSet { if needsSave && !isSaving { center?.activityNeedsSave(self) } }
    }
    public private(set) var isInvalidated = false
    /// True while it is the center's current activity.
    public var isCurrent: Bool { center?.currentActivity === self }

    weak var center: ActivityCenter?
    var isSaving = false

    /// A new activity of a type; validated when it becomes current or is saved.
    public init(activityType: String, center: ActivityCenter) {
        self.activityType = activityType
        self.activityID = UUID().uuidString
        self.revision = 0
        self.center = center
    }

    /// An activity received from a peer, as handed to `ApplicationDelegate.continue`.
    init(record: ActivityRecord, center: ActivityCenter?) {
        activityType = record.activityType
        activityID = record.activityID
        revision = record.revision
        savedAt = record.savedAt
        peer = record.peer
        self.center = center
        isSaving = true  // no saves scheduled while filling in
        title = record.title
        userInfo = record.userInfo
        requiredUserInfoKeys = Set(record.requiredUserInfoKeys ?? [])
        keywords = Set(record.keywords ?? [])
        expirationDate = record.expiresAt
        webpageURL = record.webpageURL.flatMap(URL.init(string:))
        isSaving = false
    }

    /// Merges entries into userInfo, replacing values of the same keys.
    public func addUserInfoEntries(from entries: [String: PropertyListValue]) {
        userInfo.merge(entries) { _, new in new }
    }

    /// Sets `webpageURL`; anything but http or https is refused.
    public func setWebpageURL(_ url: URL?) throws(HandoffError) {
        if let url {
            guard ActivityRecord.isValidWebpageURL(url.absoluteString) else {
                throw .invalidWebpageURL(url.absoluteString)
            }
        }
        webpageURL = url
        markChanged()
    }

    /// Makes this the center's current activity, withdrawing the previous one, and publishes it.
    public func becomeCurrent() throws(HandoffError) {
        guard !isInvalidated else { throw .invalidated(type: activityType) }
        guard ActivityTypeRegistry.isValidActivityType(activityType) else { throw .invalidActivityType(activityType) }
        center?.makeCurrent(self)
    }

    /// Stops being current (peers are told with WITHDRAW); it may become current again.
    public func resignCurrent() {
        center?.resign(self)
    }

    /// Ends the activity for good: withdrawn if current, never current again.
    public func invalidate() {
        guard !isInvalidated else { return }
        center?.resign(self)
        isInvalidated = true
    }

    /// The record as it would be published now (no hooks run).
    public func record(peer: PeerInfo) -> ActivityRecord {
        var record = ActivityRecord(
            activityID: activityID, activityType: activityType, revision: revision, savedAt: savedAt ?? (center?.clock ?? SystemClock()).date,
            userInfo: userInfo, title: title,
            requiredUserInfoKeys: requiredUserInfoKeys.isEmpty ? nil : requiredUserInfoKeys.sorted(),
            webpageURL: webpageURL?.absoluteString, keywords: keywords.isEmpty ? nil : keywords.sorted(),
            expiresAt: expirationDate, peer: peer)
        // Offered only where a stream can reach this program: through its state stream's port.
        if supportsContinuationStreams { record.continuationPort = center?.stateStream?.port }
        return record
    }

    private func markChanged() {
        guard !isSaving, !isInvalidated else { return }
        needsSave = true
    }
}
