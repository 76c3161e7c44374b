import Foundation
import Synchronization
import HandoffWire

/// The receiving rules that need no main actor, applied on whichever thread a datagram
/// arrives (a transport's own thread), in the order of docs/PROTOCOL.md section 7: the header,
/// our own sender id, the listed device, opening, duplicates, the device's signature, decoding
/// and the window. What passes is queued for the `ActivityCenter`, which takes the queue in one
/// go on the main actor.
///
/// Most of what a busy LAN carries is a repeat of an activity revision already handed on.
/// Such a repeat matters only for when its activity was last heard, so it is queued as a
/// refresh: coalesced per activity and picked up lazily (within `ReceiveGate.lazyDelay`, or
/// at the next urgent hand-over, or before anything expires). Only what changes the picture
/// — a new activity or revision, WITHDRAW, QUERY, CONTINUED — asks for the main actor at
/// once, and one wake-up carries everything queued by then. With a news frame
/// (`Configuration.newsFrame`), news of the directory (a new activity or revision, WITHDRAW)
/// that comes less than a frame after the last hand-over waits for the frame's end instead:
/// however many peers change, the main actor wakes for them at most once a frame, while a
/// QUERY, CONTINUED or DEVICES still asks at once. Rejected datagrams only count,
/// but for one: the first datagram under another group key from an address not heard before
/// asks for the main actor lazily, so a person can be told that a machine with another key is
/// there (`ActivityCenter.Event.otherKeyHeard`); likewise the first version 1 or 2 datagram from an
/// address (`oldProtocolHeard`). The addresses kept are bounded, so a flood of such datagrams,
/// from however many addresses, wakes the main actor a bounded number of times.
final class ReceiveGate: Sendable {
    /// How long a queued refresh may wait for the main actor.
    static let lazyDelay: Duration = .milliseconds(250)
    /// A repeat heard after this much silence is handed on at once: its activity may have
    /// been forgotten meanwhile.
    static let silenceBeforeUrgent: TimeInterval = 1.5
    /// The most addresses kept that datagrams under another group key came from; later ones are
    /// counted only.
    static let otherKeySourceLimit = 8

    /// One accepted datagram whose message may change something.
    struct Arrival {
        var message: HandoffMessage
        var sender: SenderID
        var source: String?
        var at: Date
        /// The record's digest, for an ANNOUNCE or OFFER.
        var digest: RecordDigest?
    }

    /// What the center takes in one go.
    struct Batch {
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

    /// What `offer` made of a datagram: how to wake the center, and whether it was accepted.
    struct Offered: Equatable {
        /// How to get the queue taken, or nil when a wake-up is already on its way (or not needed).
        var wake: Wake?
        /// It opened under the group key and passed every rule as a new datagram.
        var accepted: Bool
    }

    /// What the caller of `offer` should do to get the queue taken.
    enum Wake: Equatable {
        /// Ask the main actor now.
        case now
        /// Ask the main actor after `lazyDelay`.
        case soon
        /// Take the queue at this time (the end of the news frame), without waking the main
        /// actor before.
        case at(Date)
    }

    /// The last revision handed on for one activity: what is needed to compare, not the record.
    /// The sender it came from owns the activity while this is remembered, unless it withdrew it.
    private struct Known {
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

    private struct State {
        var senders: SenderTable
        var known: [String: Known] = [:]
        var pending = Batch()
        /// Every address (without port) heard sending under another key, first heard first.
        var otherKeySources: [String] = []
        /// Every address (without port) heard sending version 1 or 2 datagrams, first heard first.
        var oldProtocolSources: [String] = []
        /// Every address (without port) heard sending as a device this peer does not list.
        var unknownDeviceSources: [String] = []
        var urgentWakeAsked = false
        var lazyWakeAsked = false
        /// A wake-up at the end of the news frame is on its way.
        var frameWakeAsked = false
        /// When the queue was last taken.
        var lastTake: Date?
        /// News may wait for the frame's end (false while the center waits for answers).
        var holdsNews = true

        /// The wake-up for something queued that changes the picture: at once, or for news of
        /// the directory within a frame of the last hand-over, at the frame's end; nil when one
        /// that serves is on its way.
        mutating func wake(now: Date, news: Bool, frame: TimeInterval) -> Wake? {
            guard !urgentWakeAsked else { return nil }
            if news, frame > 0, holdsNews, let last = lastTake, now.timeIntervalSince(last) < frame {
                guard !frameWakeAsked else { return nil }
                frameWakeAsked = true
                return .at(last.addingTimeInterval(frame))
            }
            urgentWakeAsked = true
            return .now
        }

        /// Asks for the lazy wake-up unless one that comes no later is on its way.
        mutating func lazyWake() -> Wake? {
            guard !urgentWakeAsked, !lazyWakeAsked, !frameWakeAsked else { return nil }
            lazyWakeAsked = true
            return .soon
        }
    }

    private let membership: Membership
    private let allowedClockSkew: TimeInterval
    private let ownSender: SenderID
    private let knownLimit: Int
    /// `Configuration.newsFrame`, in seconds; 0 hands news on at once.
    private let newsFrame: TimeInterval
    /// How long replay state and revision memory last after their sender was last heard:
    /// twice the allowed clock skew, after which every datagram they guard against fails the
    /// skew check anyway.
    let memoryLifetime: TimeInterval
    private let state: Mutex<State>

    init(
        membership: Membership, allowedClockSkew: TimeInterval, ownSender: SenderID, limits: PeerDirectory.Limits,
        newsFrame: TimeInterval = 0
    ) {
        self.membership = membership
        // No longer than the lazy wake-up of repeats, which the frame's wake-up then serves.
        self.newsFrame = min(max(0, newsFrame), Self.lazyDelay.seconds)
        self.allowedClockSkew = allowedClockSkew
        self.ownSender = ownSender
        knownLimit = max(1, limits.maxActivities * 4)
        memoryLifetime = 2 * allowedClockSkew
        state = Mutex(State(senders: SenderTable(limit: limits.maxSenders, lifetime: memoryLifetime)))
    }

    /// Applies every stateless rule and replay to one datagram and queues the result;
    /// says how to wake the center, or nil when a wake-up is already on its way (or not needed).
    func offer(_ datagram: ReceivedDatagram, now: Date) -> Wake? {
        check(datagram, now: now).wake
    }

    /// `offer`, also saying whether the datagram was accepted.
    func check(_ datagram: ReceivedDatagram, now: Date) -> Offered {
        var accepted = false
        let wake = queue(datagram, now: now, accepted: &accepted)
        return Offered(wake: wake, accepted: accepted)
    }

    private func queue(_ datagram: ReceivedDatagram, now: Date, accepted: inout Bool) -> Wake? {
        let header: DatagramHeader
        let decoded: DecodedDatagram
        var listed = false
        do throws(RejectionReason) {
            header = try DatagramHeader(parsing: datagram.bytes)
            if header.senderID == ownSender {
                return state.withLock { s in
                    s.pending.statistics.own += 1
                    return nil
                }
            }
            let codec = membership.codec(allowedClockSkew: allowedClockSkew)
            // Step 5: another group key is said as such (a machine to pair), listed device or not.
            guard codec.keys.key(for: header.keyID) != nil else { throw .authenticationFailed }
            // Step 6: a device not listed is not heard, but for the statements it brings.
            let device = membership.device(for: header.senderID.tag)
            guard device != nil || header.kind == .devices else { throw .unknownDevice }
            listed = device != nil
            let opened = try codec.open(datagram.bytes, header: header)
            // Step 9: a datagram heard twice is verified once.
            let seen = state.withLock { s in
                s.senders.verdict(sender: header.senderID, sequence: header.sequence, at: now) == .duplicate
            }
            if seen {
                return state.withLock { s in
                    s.pending.statistics.duplicate += 1
                    return nil
                }
            }
            if let device { try opened.verify(by: device) }
            decoded = try codec.decode(opened, now: now)
        } catch {
            return rejected(error, datagram)
        }
        let digest = decoded.message.published?.record.digest
        let arrival = Arrival(
            message: decoded.message, sender: header.senderID, source: datagram.source, at: now, digest: digest)
        let lifetime = memoryLifetime
        // A relay gives no address to fetch from: its copies leave the sender's address as it was.
        let heardFrom = datagram.path == .relay ? nil : datagram.source
        return state.withLock { s in
            switch s.senders.verdict(sender: header.senderID, sequence: header.sequence, at: now) {
            case .fresh: break
            case .replay:
                s.pending.statistics.count(.replay)
                return nil
            case .duplicate:
                s.pending.statistics.duplicate += 1
                return nil
            }
            // The remembered revision of an activity, while it lasts; an expired one is forgotten.
            func remembered(_ id: String) -> Known? {
                guard let known = s.known[id] else { return nil }
                guard now.timeIntervalSince(known.heard) < lifetime else {
                    s.known[id] = nil
                    return nil
                }
                return known
            }
            func accept() {
                accepted = true
                s.senders.accept(sender: header.senderID, sequence: header.sequence, source: heardFrom, at: now)
                s.pending.statistics.accepted += 1
            }
            /// Whether the sender's datagram about this activity arrived after a later one about it
            /// that was handed on (the window takes late datagrams): then it changes nothing.
            func isLate(_ known: Known?) -> Bool {
                guard let known, known.sender == header.senderID else { return false }
                return header.sequence < known.sequence
            }
            func makeRoom(for known: Known?) {
                guard known == nil, s.known.count >= knownLimit else { return }
                // Half at a time, the least recently heard: one sort per many newcomers in a flood.
                for (id, _) in s.known.sorted(by: { $0.value.heard < $1.value.heard }).prefix(knownLimit / 2) {
                    s.known[id] = nil
                }
            }
            switch decoded.message {
            case .announce(let record), .offer(let record, _):
                let remembered = remembered(record.activityID)
                if isLate(remembered) {
                    accept()
                    return nil
                }
                if let owner = remembered?.owner, owner != header.senderID {
                    // The activity belongs to the sender that announced it, until it withdraws or falls silent.
                    s.pending.statistics.count(.notOwner)
                    return nil
                }
                accept()
                // A withdrawn entry is taken as nothing remembered, but for the late datagrams above.
                let known = remembered?.withdrawn == true ? nil : remembered
                let offer = decoded.message.stateOffer
                if let known, known.digest == digest, known.offer == offer,
                    now.timeIntervalSince(known.heard) < Self.silenceBeforeUrgent
                {
                    s.known[record.activityID]?.heard = now
                    s.known[record.activityID]?.sequence = header.sequence
                    s.pending.refreshes[record.activityID] = arrival
                    return s.lazyWake()
                }
                makeRoom(for: remembered)
                if let known, record.revision < known.revision {
                    // Older than what was handed on: the directory would ignore it anyway.
                    return nil
                }
                s.known[record.activityID] = Known(
                    sender: header.senderID, revision: record.revision, digest: digest, offer: offer, heard: now,
                    sequence: header.sequence)
            case .withdraw(let id):
                let remembered = remembered(id)
                if isLate(remembered) {
                    accept()
                    return nil
                }
                if let owner = remembered?.owner, owner != header.senderID {
                    s.pending.statistics.count(.notOwner)
                    return nil
                }
                accept()
                makeRoom(for: remembered)
                // Kept as withdrawn, so that an ANNOUNCE it overtook does not bring the activity back.
                s.known[id] = Known(
                    sender: header.senderID, revision: remembered?.revision ?? 0, digest: nil, offer: nil, heard: now,
                    sequence: header.sequence, withdrawn: true)
            case .query, .continued:
                accept()
            case .devices:
                // From a device not listed, only the statements count (their signatures are
                // checked one by one): it is not accepted as a sender, and teaches no peer.
                if listed { accept() }
            case .store:
                accept()
            }
            s.pending.arrivals.append(arrival)
            return s.wake(now: now, news: decoded.message.isDirectoryNews, frame: newsFrame)
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
            switch error {
            case .authenticationFailed:
                guard s.otherKeySources.count < Self.otherKeySourceLimit, !s.otherKeySources.contains(source) else {
                    return nil
                }
                s.otherKeySources.append(source)
                s.pending.otherKeySources.append(source)
            case .oldProtocol:
                guard s.oldProtocolSources.count < Self.otherKeySourceLimit, !s.oldProtocolSources.contains(source)
                else { return nil }
                s.oldProtocolSources.append(source)
                s.pending.oldProtocolSources.append(source)
            case .unknownDevice:
                // Only counted, but the counters reach the center soon, so a monitor shows them.
                guard s.unknownDeviceSources.count < Self.otherKeySourceLimit, !s.unknownDeviceSources.contains(source)
                else { return nil }
                s.unknownDeviceSources.append(source)
            default:
                return nil
            }
            return s.lazyWake()
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
        get { state.withLock { $0.holdsNews } }
        set { state.withLock { $0.holdsNews = newValue } }
    }

    /// What was counted since the last `take`, without taking it.
    var pendingStatistics: ReceiveStatistics { state.withLock { $0.pending.statistics } }

    /// Everything queued since the last call; later offers ask for a new wake-up. `now` starts
    /// a news frame.
    func take(now: Date = Date()) -> Batch {
        state.withLock { s in
            s.urgentWakeAsked = false
            s.lazyWakeAsked = false
            s.frameWakeAsked = false
            s.lastTake = now
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
}
