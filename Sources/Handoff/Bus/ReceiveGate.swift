import FoundationEssentials
import Synchronization
import HandoffWire

/// The receiving side of the bus, on whichever thread a datagram arrives (a transport's own
/// thread): the steps of docs/PROTOCOL.md section 7 as three parts that each know theirs —
/// `DatagramVerifier` (one datagram alone: header, key, device, opening, signature, decoding),
/// the replay window (`SenderTable`), and for activities their `ActivityOwnership` — then the
/// `WakePolicy`, which says when the main actor takes what was queued.
///
/// Most of what a busy LAN carries is a repeat of an activity revision already handed on.
/// Such a repeat matters only for when its activity was last heard, so it is queued as a
/// refresh: coalesced per activity and picked up lazily (within `lazyDelay`, at the next
/// urgent intake, or before anything expires). Whatever changes the picture asks for the main
/// actor at once, and one wake-up carries everything queued by then; with a news frame
/// (`Configuration.newsFrame`), news of the directory waits for the frame's end. Rejected
/// datagrams only count, but for one: the first datagram under another group key, of an older
/// protocol, or of a device not listed, from an address asks for the main actor lazily, so a
/// person can be told (`ActivityCenter.Event.otherKeyHeard`, `oldProtocolHeard`). The
/// addresses kept are bounded, so a flood of such datagrams wakes the main actor a bounded
/// number of times.
final class ReceiveGate: Sendable {
    typealias Wake = WakePolicy.Wake

    /// How long a queued refresh may wait for the main actor.
    static let lazyDelay = WakePolicy.lazyDelay
    /// The most addresses kept that datagrams under another group key came from; later ones are
    /// counted only.
    static let otherKeySourceLimit = 8

    /// One accepted datagram whose message may change something.
    struct Arrival: Sendable {
        var message: HandoffMessage
        var sender: SenderID
        var source: String?
        var at: Date
        /// The record's digest, for an ANNOUNCE or OFFER.
        var digest: RecordDigest?
    }

    /// What the bus takes in one go.
    struct Batch: Sendable {
        var statistics = ReceiveStatistics()
        var arrivals: [Arrival] = []
        /// The newest repeat of each activity, by activity id.
        var refreshes: [String: Arrival] = [:]
        /// Addresses heard for the first time sending datagrams that failed authentication.
        var otherKeySources: [String] = []
        /// Addresses heard for the first time sending version 1 or 2 datagrams.
        var oldProtocolSources: [String] = []

        var isEmpty: Bool {
            statistics.isEmpty && arrivals.isEmpty && refreshes.isEmpty && otherKeySources.isEmpty
                && oldProtocolSources.isEmpty
        }
    }

    /// What `check` made of a datagram: how to wake the bus, and whether it was accepted.
    struct Offered: Equatable {
        /// How to get the queue taken, or nil when a wake-up is already on its way (or not needed).
        var wake: Wake?
        /// It opened under the group key and passed every rule as a new datagram.
        var accepted: Bool
    }

    private struct State {
        var senders: SenderTable
        var ownership: ActivityOwnership
        var wake: WakePolicy
        var pending = Batch()
        /// Addresses (without port) heard sending under another key, an older protocol, or as
        /// a device this peer does not list; first heard first.
        var otherKeySources: [String] = []
        var oldProtocolSources: [String] = []
        var unknownDeviceSources: [String] = []
    }

    private let verifier: DatagramVerifier
    /// How long replay state and revision memory last after their sender was last heard:
    /// twice the allowed clock skew, after which every datagram they guard against fails the
    /// skew check anyway.
    let memoryLifetime: TimeInterval
    private let state: Mutex<State>

    init(
        membership: Membership, allowedClockSkew: TimeInterval, ownSender: SenderID, limits: PeerDirectory.Limits,
        newsFrame: TimeInterval = 0
    ) {
        verifier = DatagramVerifier(membership: membership, ownSender: ownSender, allowedClockSkew: allowedClockSkew)
        memoryLifetime = 2 * allowedClockSkew
        state = Mutex(
            State(
                senders: SenderTable(limit: limits.maxSenders, lifetime: memoryLifetime),
                ownership: ActivityOwnership(limit: limits.maxActivities * 4, lifetime: memoryLifetime),
                wake: WakePolicy(frame: newsFrame)))
    }

    /// Applies every rule to one datagram and queues the result; says how to wake the bus, or
    /// nil when a wake-up is already on its way (or not needed).
    func offer(_ datagram: ReceivedDatagram, now: Date) -> Wake? {
        check(datagram, now: now).wake
    }

    /// `offer`, also saying whether the datagram was accepted.
    func check(_ datagram: ReceivedDatagram, now: Date) -> Offered {
        let verdict = verifier.verify(datagram.bytes, now: now) { sender, sequence in
            state.withLock { $0.senders.verdict(sender: sender, sequence: sequence, at: now) == .duplicate }
        }
        switch verdict {
        case .own:
            state.withLock { $0.pending.statistics.own += 1 }
            return Offered(wake: nil, accepted: false)
        case .duplicate:
            state.withLock { $0.pending.statistics.duplicate += 1 }
            return Offered(wake: nil, accepted: false)
        case .rejected(let reason):
            return Offered(wake: rejected(reason, datagram), accepted: false)
        case .verified(let verified):
            return queue(verified, datagram, now: now)
        }
    }

    /// The window (step 15), ownership (step 16), then the queue and the wake-up.
    private func queue(_ verified: VerifiedDatagram, _ datagram: ReceivedDatagram, now: Date) -> Offered {
        let header = verified.header
        let message = verified.message
        let digest = message.published?.record.digest
        // A relay gives no address to fetch from: its copies leave the sender's address as it was.
        let heardFrom = datagram.path == .relay ? nil : datagram.source
        return state.withLock { s in
            switch s.senders.verdict(sender: header.senderID, sequence: header.sequence, at: now) {
            case .fresh: break
            case .replay:
                s.pending.statistics.count(.replay)
                return Offered(wake: nil, accepted: false)
            case .duplicate:
                s.pending.statistics.duplicate += 1
                return Offered(wake: nil, accepted: false)
            }
            let claim = message.claim(digest: digest)
            let ruling: ActivityOwnership.Ruling =
                claim.map {
                    s.ownership.claim($0.claim, activityID: $0.activityID, by: header.senderID, sequence: header.sequence, now: now)
                } ?? .news
            if ruling == .notOwner {
                s.pending.statistics.count(.notOwner)
                return Offered(wake: nil, accepted: false)
            }
            // From a device not listed, only a DEVICES datagram's statements count (their
            // signatures are checked one by one): it is not accepted as a sender, and teaches no peer.
            let accepted = verified.listed
            if accepted {
                s.senders.accept(sender: header.senderID, sequence: header.sequence, source: heardFrom, at: now)
                s.pending.statistics.accepted += 1
            }
            let arrival = Arrival(
                message: message, sender: header.senderID, source: datagram.source, at: now, digest: digest)
            switch ruling {
            case .stale, .notOwner:
                return Offered(wake: nil, accepted: accepted)
            case .refresh:
                s.pending.refreshes[claim?.activityID ?? ""] = arrival
                return Offered(wake: s.wake.lazy(), accepted: accepted)
            case .news:
                s.pending.arrivals.append(arrival)
                return Offered(wake: s.wake.urgent(now: now, news: message.isDirectoryNews), accepted: accepted)
            }
        }
    }

    /// Counts a rejection; the first datagram under another group key, of an older protocol, or
    /// of a device not listed, from an address asks for the main actor lazily, so that a person
    /// can be told.
    private func rejected(_ error: RejectionReason, _ datagram: ReceivedDatagram) -> Wake? {
        let source = datagram.source.map(Self.host(of:))
        return state.withLock { s in
            s.pending.statistics.count(error)
            guard let source else { return nil }
            func firstHeard(_ kept: inout [String]) -> Bool {
                guard kept.count < Self.otherKeySourceLimit, !kept.contains(source) else { return false }
                kept.append(source)
                return true
            }
            switch error {
            case .authenticationFailed:
                guard firstHeard(&s.otherKeySources) else { return nil }
                s.pending.otherKeySources.append(source)
            case .oldProtocol:
                guard firstHeard(&s.oldProtocolSources) else { return nil }
                s.pending.oldProtocolSources.append(source)
            case .unknownDevice:
                // Only counted, but the counters reach the bus soon, so a monitor shows them.
                guard firstHeard(&s.unknownDeviceSources) else { return nil }
            default:
                return nil
            }
            return s.wake.lazy()
        }
    }

    /// The addresses (without port) that version 1 or 2 datagrams came from, first heard first,
    /// at most `otherKeySourceLimit`.
    var oldProtocolSources: [String] { state.withLock { $0.oldProtocolSources } }

    /// The addresses (without port) that datagrams under another group key came from, first
    /// heard first, at most `otherKeySourceLimit`.
    var otherKeySources: [String] { state.withLock { $0.otherKeySources } }

    /// `10.77.0.12` from `10.77.0.12:47788`, `fe80::1` from `[fe80::1]:47788`; a relay's
    /// `relay:…` and a name without a port stay as they are.
    static func host(of source: String) -> String {
        if source.hasPrefix("relay:") { return source }
        if source.hasPrefix("["), let end = source.firstIndex(of: "]") {
            return String(source[source.index(after: source.startIndex)..<end])
        }
        guard let colon = source.lastIndex(of: ":"), source.firstIndex(of: ":") == colon else { return source }
        return String(source[..<colon])
    }

    /// Whether news of the directory may wait for the end of the news frame; the center turns
    /// it off while a find waits for answers.
    var holdsNews: Bool {
        get { state.withLock { $0.wake.holdsNews } }
        set { state.withLock { $0.wake.holdsNews = newValue } }
    }

    /// What was counted since the last `take`, without taking it.
    var pendingStatistics: ReceiveStatistics { state.withLock { $0.pending.statistics } }

    /// Everything queued since the last call; later offers ask for a new wake-up. `now` starts
    /// a news frame.
    func take(now: Date) -> Batch {
        state.withLock { s in
            s.wake.taken(at: now)
            defer { s.pending = Batch() }
            return s.pending
        }
    }
}

extension HandoffMessage {
    /// What changes only the directory (a new activity or revision, a withdrawal), which a news
    /// frame may hold back; a QUERY, CONTINUED, DEVICES or STORE is answered at once.
    fileprivate var isDirectoryNews: Bool {
        switch self {
        case .announce, .offer, .withdraw: true
        case .query, .continued, .devices, .store: false
        }
    }

    /// What an ANNOUNCE, OFFER (whose record has `digest`) or WITHDRAW says about which
    /// activity; nil for other kinds.
    fileprivate func claim(digest: RecordDigest?) -> (claim: ActivityOwnership.Claim, activityID: String)? {
        switch self {
        case .announce(let record), .offer(let record, _):
            (.publish(revision: record.revision, digest: digest, offer: stateOffer), record.activityID)
        case .withdraw(let id): (.withdraw, id)
        case .query, .continued, .devices, .store: nil
        }
    }
}
