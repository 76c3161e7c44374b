import FoundationEssentials
import HandoffWire

/// An activity another peer offers, as this peer last heard it.
public struct NearbyActivity: Identifiable, Equatable, Sendable {
    public var id: String { record.activityID }
    /// The newest revision heard.
    public var record: ActivityRecord
    public var senderID: SenderID
    /// When this peer last heard it (by its own clock).
    public var lastHeard: Date
    /// Where the last datagram came from, when the transport knows.
    public var source: String?
    /// Set when the record is too large for a datagram: `record.userInfo` then holds only the
    /// OFFER's `summary`, and continuing fetches the whole record over the state stream.
    public var offer: StateOffer?
    /// How many accepted ANNOUNCEs carried it; a genuine peer repeats every second.
    public internal(set) var timesHeard = 1
    /// The record's digest, as it arrived (before `savedAt` was clamped), to tell a change from a repeat.
    var digest: RecordDigest?
}
