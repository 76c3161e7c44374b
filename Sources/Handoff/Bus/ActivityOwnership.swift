import FoundationEssentials
import HandoffWire

/// Who owns each activity heard, and what was last handed on for it (docs/PROTOCOL.md
/// section 7, "Revision memory" and "Late datagrams"): the activities service's part of the
/// receive gate, step 16. It remembers per activity its sender, revision, the record's digest,
/// the OFFER's terms, the sequence of the datagram that carried it and when it was heard;
/// never the record. ANNOUNCE, OFFER and WITHDRAW all go through `claim`.
struct ActivityOwnership: Sendable {
    /// A repeat heard after this much silence is handed on as news: its activity may have
    /// been forgotten meanwhile.
    static let silenceBeforeUrgent: TimeInterval = 1.5

    /// What a datagram says about its activity.
    enum Claim: Sendable {
        /// An ANNOUNCE or OFFER of this revision, with its record's digest and the OFFER's terms.
        case publish(revision: Int, digest: RecordDigest?, offer: StateOffer?)
        /// A WITHDRAW.
        case withdraw
    }

    /// What the gate does with it.
    enum Ruling: Equatable, Sendable {
        /// Refused: the activity is remembered as another sender's (`notOwner`).
        case notOwner
        /// Accepted, but older than what was handed on (a late datagram, or a lower revision):
        /// nothing to hand on.
        case stale
        /// Accepted: a plain repeat of what was handed on, to be taken in lazily.
        case refresh
        /// Accepted: news to hand on.
        case news
    }

    /// The last revision handed on for one activity. The sender it came from owns the
    /// activity while this is remembered, unless it withdrew it.
    private struct Known: Sendable {
        var sender: SenderID
        var revision: Int
        /// nil once withdrawn.
        var digest: RecordDigest?
        var offer: StateOffer?
        var heard: Date
        /// The sequence of the last ANNOUNCE, OFFER or WITHDRAW of it handed on from `sender`:
        /// one of theirs with a lower sequence arrived late and is older than what was handed on.
        var sequence: UInt64
        /// Withdrawn by `sender`: it owns nothing, but a late ANNOUNCE of it does not bring it back.
        var withdrawn = false

        /// The sender that owns the activity, while it does.
        var owner: SenderID? { withdrawn ? nil : sender }
    }

    private var known: [String: Known] = [:]
    /// The most activities remembered; a newcomer beyond it makes room by half.
    let limit: Int
    /// How long an activity is remembered after it was last heard.
    let lifetime: TimeInterval

    init(limit: Int, lifetime: TimeInterval) {
        self.limit = max(1, limit)
        self.lifetime = lifetime
    }

    /// How many activities are remembered now.
    var count: Int { known.count }

    /// Rules on `claim` about `activityID` from `sender`'s datagram `sequence`, heard at `now`,
    /// and remembers what an accepted claim hands on.
    mutating func claim(
        _ claim: Claim, activityID: String, by sender: SenderID, sequence: UInt64, now: Date
    ) -> Ruling {
        let remembered = remembered(activityID, now: now)
        // The window takes late datagrams: one older than what was handed on from its sender changes nothing.
        if let remembered, remembered.sender == sender, sequence < remembered.sequence { return .stale }
        // The activity belongs to the sender that announced it, until it withdraws or falls silent.
        if let owner = remembered?.owner, owner != sender { return .notOwner }
        switch claim {
        case .publish(let revision, let digest, let offer):
            // A withdrawn entry is taken as nothing remembered, but for the late datagrams above.
            let current = remembered?.withdrawn == true ? nil : remembered
            if let current, current.digest == digest, current.offer == offer,
                now.timeIntervalSince(current.heard) < Self.silenceBeforeUrgent
            {
                known[activityID]?.heard = now
                known[activityID]?.sequence = sequence
                return .refresh
            }
            makeRoom(for: remembered)
            // Older than what was handed on: the directory would ignore it anyway.
            if let current, revision < current.revision { return .stale }
            known[activityID] = Known(
                sender: sender, revision: revision, digest: digest, offer: offer, heard: now, sequence: sequence)
        case .withdraw:
            makeRoom(for: remembered)
            // Kept as withdrawn, so that an ANNOUNCE it overtook does not bring the activity back.
            known[activityID] = Known(
                sender: sender, revision: remembered?.revision ?? 0, digest: nil, offer: nil, heard: now,
                sequence: sequence, withdrawn: true)
        }
        return .news
    }

    /// The remembered revision of an activity, while it lasts; an expired one is forgotten.
    private mutating func remembered(_ id: String, now: Date) -> Known? {
        guard let entry = known[id] else { return nil }
        guard now.timeIntervalSince(entry.heard) < lifetime else {
            known[id] = nil
            return nil
        }
        return entry
    }

    private mutating func makeRoom(for remembered: Known?) {
        guard remembered == nil, known.count >= limit else { return }
        // Half at a time, the least recently heard: one sort per many newcomers in a flood.
        for (id, _) in known.sorted(by: { $0.value.heard < $1.value.heard }).prefix(limit / 2) {
            known[id] = nil
        }
    }
}
