import FoundationEssentials
import HandoffWire

/// What is nearby: the newest revision of every remote activity.
///
/// A pure value: the `ActivityCenter` feeds it what it accepts and the time, and asks what
/// changed. Memory is bounded: at most `limits.maxActivities` activities are tracked. When
/// full, an activity heard only once makes room before one heard again and again, then the
/// least recently heard: a flood of one-shot senders cannot push out a peer that keeps
/// repeating its activity. (`limits.maxSenders` bounds the replay state, a `SenderTable`
/// kept by the center's receive gate.)
public struct PeerDirectory: Sendable {
    public struct Limits: Sendable {
        public var maxSenders: Int
        public var maxActivities: Int
        public init(maxSenders: Int = 1024, maxActivities: Int = 256) {
            self.maxSenders = maxSenders
            self.maxActivities = maxActivities
        }
    }

    /// What a change did to the directory.
    public enum Change: Equatable, Sendable {
        case added(NearbyActivity)
        case updated(NearbyActivity)
        case removed(NearbyActivity)
    }

    public let limits: Limits
    private var entries: [String: NearbyActivity] = [:]

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Every activity heard, newest save first.
    public var activities: [NearbyActivity] {
        entries.values.sorted {
            ($0.record.savedAt, $0.lastHeard, $0.id) > ($1.record.savedAt, $1.lastHeard, $1.id)
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    public subscript(activityID: String) -> NearbyActivity? { entries[activityID] }

    /// Distinct peers (by name) with an activity nearby.
    public var peerNames: Set<String> { Set(entries.values.map(\.record.peer.name)) }

    /// Takes an ANNOUNCE (or OFFER). The activity belongs to the sender that announced it:
    /// another sender's ANNOUNCE of it is ignored while it is listed. An older revision never
    /// replaces a newer one; the same revision only refreshes when it was heard.
    ///
    /// A `savedAt` later than `latestSavedAt` (the arrival time plus the allowed clock skew) is
    /// clamped to it when the revision is first heard, and repeats keep that, so a forged date
    /// far in the future cannot make a record the newest for longer than the skew.
    /// `digest` is the record's (``ActivityRecord/digest``), computed here when not given.
    public mutating func announce(
        _ record: ActivityRecord, offer: StateOffer? = nil, from sender: SenderID, at now: Date, source: String? = nil,
        digest: RecordDigest? = nil, latestSavedAt: Date? = nil
    ) -> Change? {
        let digest = digest ?? record.digest
        var record = record
        if let latestSavedAt, record.savedAt > latestSavedAt {
            let existing = entries[record.activityID]
            record.savedAt = existing?.digest == digest ? min(existing!.record.savedAt, latestSavedAt) : latestSavedAt
        }
        if var existing = entries[record.activityID] {
            guard existing.senderID == sender else { return nil }
            if record.revision < existing.record.revision { return nil }
            let changed = digest != existing.digest || offer != existing.offer
            existing.record = record
            existing.digest = digest
            existing.offer = offer
            // Repeats may be taken in after news that arrived before them: never back in time.
            existing.lastHeard = max(existing.lastHeard, now)
            existing.source = source
            existing.timesHeard += 1
            entries[record.activityID] = existing
            return changed ? .updated(existing) : nil
        }
        if entries.count >= limits.maxActivities { makeRoom() }
        var entry = NearbyActivity(record: record, senderID: sender, lastHeard: now, source: source, offer: offer)
        entry.digest = digest
        entries[record.activityID] = entry
        return .added(entry)
    }

    /// Full: some of the rest make room, without a change of their own. Activities heard only
    /// once go first, the older half of them at a time (a flood of them then costs one sort
    /// per many arrivals); when every activity was heard again and again, the one heard least
    /// recently goes.
    private mutating func makeRoom() {
        let once = entries.values.filter { $0.timesHeard <= 1 }
        if !once.isEmpty {
            for entry in once.sorted(by: { $0.lastHeard < $1.lastHeard }).prefix(max(1, once.count / 2)) {
                entries[entry.id] = nil
            }
        } else if let victim = entries.values.min(by: { $0.lastHeard < $1.lastHeard }) {
            entries[victim.id] = nil
        }
    }

    /// Takes a WITHDRAW; only the sender that announced the activity can withdraw it.
    public mutating func withdraw(activityID: String, from sender: SenderID) -> Change? {
        guard let existing = entries[activityID], existing.senderID == sender else { return nil }
        entries[activityID] = nil
        return .removed(existing)
    }

    /// Forgets every activity not heard for `timeout`; returns what it forgot.
    public mutating func expire(at now: Date, timeout: TimeInterval) -> [Change] {
        let stale = entries.values.filter { now.timeIntervalSince($0.lastHeard) >= timeout }
        for entry in stale { entries[entry.id] = nil }
        return stale.sorted { $0.id < $1.id }.map(Change.removed)
    }

    /// When the next activity will be forgotten, if any is tracked.
    public func nextExpiry(timeout: TimeInterval) -> Date? {
        entries.values.map(\.lastHeard).min().map { $0.addingTimeInterval(timeout) }
    }
}
