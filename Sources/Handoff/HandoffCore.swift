import FoundationEssentials
import HandoffWire

/// Baton's activity rules without I/O: saving, repeating, receiving, answering, expiring,
/// finding and continuing, as a state machine. It owns the activities' message kinds on the
/// bus (ANNOUNCE, WITHDRAW, QUERY, OFFER, CONTINUED); the bus numbers and seals what it sends.
///
/// Every input carries the time it happens at (a `ClockReading`: deadlines are counted on its
/// monotonic instant, and what is sent is stamped with its date), and every answer is a list
/// of `Action`s for the caller to carry out (send these bytes, run the save hooks, tell the
/// UI). When the core wants to be asked again, `nextDeadline` says when: the caller calls
/// `tick(now:)` then. It never reads a clock, sleeps, or touches a socket, so a test drives it
/// through hours of protocol time in microseconds. `ActivityCenter` is the runner that does
/// the rest on the main actor, as the activities' service on the `DatagramBus`.
struct HandoffCore: Sendable {
    /// Names one `find` in progress.
    typealias FindID = UInt64

    /// What the caller must do.
    enum Action: Equatable, Sendable {
        /// Run the save hooks of the current activity (it has this id), then call `saveFinished`.
        case save(activityID: String)
        /// Seal and send this message, stamped `at`: the bus numbers it when it is written.
        case send(HandoffMessage, at: Date)
        /// A save was accepted: the activity now has this record's revision and savedAt;
        /// `published` when it went to peers (the activity is eligible for handoff).
        case saved(ActivityRecord, published: Bool)
        /// A save was refused; the previous published state stays.
        case saveFailed(activityType: String, error: HandoffError)
        /// The nearby list changed.
        case nearbyChanged
        /// Keep this state to serve it over the state stream: `record`, the record this
        /// revision's OFFER describes (numbered, with its save time), whose encoding
        /// (`HandoffCore.stateEncoding(of:)`, the same bytes every time) has SHA-256 `digest`.
        /// The encoding itself is not carried: it is made again when a peer fetches it, and
        /// the one made for the digest goes where it was made (off the main actor for a large
        /// state), not to the main actor to be released there.
        case shelve(activityID: String, revision: Int, digest: [UInt8], record: ActivityRecord)
        /// The activity stopped being offered: its kept states can go.
        case unshelve(activityID: String)
        /// A peer continued one of our activities.
        case continued(activityID: String, by: PeerInfo)
        /// A `find` is over: the activity found, or nil.
        case found(FindID, NearbyActivity?)
    }

    /// The current activity, as far as the rules need to know it.
    struct Current: Equatable, Sendable {
        var activityID: String
        var isEligible: Bool
    }

    let configuration: ActivityCenter.Configuration
    let registry: ActivityTypeRegistry
    /// What is nearby.
    var directory: PeerDirectory
    var current: Current?
    /// The record last published for the current activity.
    var lastPublished: ActivityRecord? { lastMessage?.published?.record }
    /// What carried it: an ANNOUNCE, or an OFFER when it did not fit a datagram; its repeats.
    var lastMessage: HandoffMessage?
    /// The TCP port the state stream serves on; nil when none runs, and then a record that
    /// does not fit a datagram cannot be published.
    var streamPort: Int?
    private(set) var isStarted = false
    private(set) var isShutDown = false

    var random: SplitMix64
    /// When the pending save is due; nil when none is pending.
    var saveDue: ContinuousClock.Instant?
    var lastSave: ContinuousClock.Instant?
    /// The save whose encoding is being made (see `beginSave`); nil when none is.
    var saveInFlight: UInt64?
    /// The last save's token.
    var saveToken: UInt64 = 0
    /// Bytes of the last saved state encoding; stretches the save window for large states.
    var lastStateSize = 0
    var repeats: RepeatClock?
    /// When the pending QUERY answer is due.
    var queryAnswerDue: ContinuousClock.Instant?
    /// How often QUERYs are answered, per asker and in all.
    var queryAnswers = QueryAnswerLimit()
    var finds: [FindID: PendingFind] = [:]
    /// The latest time the core was given: the directory keeps when it heard each activity as
    /// a date, to be shown, and its expiry becomes an instant as the clock stood then.
    private(set) var lastReading: ClockReading?

    init(configuration: ActivityCenter.Configuration, registry: ActivityTypeRegistry, seed: UInt64 = .random(in: 0...UInt64.max)) {
        self.configuration = configuration
        self.registry = registry
        directory = PeerDirectory(limits: configuration.directoryLimits)
        random = SplitMix64(seed: seed)
    }

    /// When the core next wants `tick`: the earliest of a pending save, the next repeat, a
    /// QUERY answer, the next expiry and the finds' windows; nil when nothing is waiting.
    var nextDeadline: ContinuousClock.Instant? {
        guard !isShutDown else { return nil }
        // Asked after every batch received, so no array is built for it. A save due while one
        // is in flight waits for it: `encodingFinished` asks for the deadline again.
        var next = saveInFlight == nil ? saveDue : nil
        func consider(_ instant: ContinuousClock.Instant?) {
            if let instant, next.map({ instant < $0 }) ?? true { next = instant }
        }
        if isStarted { consider(repeats?.next) }
        consider(queryAnswerDue)
        if let lastReading, let expiry = directory.nextExpiry(timeout: configuration.forgetAfter.seconds) {
            consider(lastReading.instant(at: expiry))
        }
        for find in finds.values { consider(find.nextDeadline) }
        return next
    }

    // MARK: Life

    /// Starts repeating: the current ANNOUNCE (once there is one) every `repeatInterval` from now.
    mutating func start(now: ClockReading) {
        guard !isStarted, !isShutDown else { return }
        isStarted = true
        noteTime(now)
        repeats = RepeatClock(anchor: now.instant, fast: false, configuration: configuration)
    }

    /// Withdraws the current activity and ends every find with nothing; no actions after this.
    mutating func shutdown(now: ClockReading) -> [Action] {
        guard !isShutDown else { return [] }
        var actions: [Action] = []
        if let current { actions += resign(activityID: current.activityID, now: now) }
        isShutDown = true
        actions += finds.keys.sorted().map { .found($0, nil) }
        finds.removeAll()
        saveDue = nil
        saveInFlight = nil
        queryAnswerDue = nil
        return actions
    }

    /// Carries out whatever is due at `now`.
    mutating func tick(now: ClockReading) -> [Action] {
        guard !isShutDown else { return [] }
        noteTime(now)
        var actions: [Action] = []
        if saveInFlight == nil, let due = saveDue, due <= now.instant {
            saveDue = nil
            lastSave = now.instant
            if let current { actions.append(.save(activityID: current.activityID)) }
        }
        if isStarted, var clock = repeats, clock.next <= now.instant {
            actions += repeatCurrent(now: now)
            clock.advance(past: now.instant, configuration: configuration)
            repeats = clock
        }
        if let due = queryAnswerDue, due <= now.instant {
            queryAnswerDue = nil
            actions += repeatCurrent(now: now)
        }
        if !directory.expire(at: now.date, timeout: configuration.forgetAfter.seconds).isEmpty {
            actions.append(.nearbyChanged)
        }
        actions += checkFinds(now: now)
        return actions
    }

    /// Asks for a message to be sent.
    mutating func send(_ message: HandoffMessage, now: ClockReading) -> [Action] {
        guard !isShutDown else { return [] }
        return [.send(message, at: now.date)]
    }

    /// Keeps the latest time given, for the directory's expiry.
    mutating func noteTime(_ now: ClockReading) {
        if lastReading.map({ $0 < now }) ?? true { lastReading = now }
    }

    /// Sends the published ANNOUNCE again, if the current activity still offers it.
    mutating func repeatCurrent(now: ClockReading) -> [Action] {
        guard let message = lastMessage, let record = message.published?.record, let current, current.isEligible,
            current.activityID == record.activityID
        else { return [] }
        return send(message, now: now)
    }

}

/// When the current ANNOUNCE is repeated next, counted from a save (or from start-up).
struct RepeatClock: Equatable, Sendable {
    let anchor: ContinuousClock.Instant
    /// Counted from a save: the burst applies.
    let fast: Bool
    /// Time from `anchor` to `next`.
    private(set) var elapsed: Duration
    private(set) var next: ContinuousClock.Instant

    init(anchor: ContinuousClock.Instant, fast: Bool, configuration: ActivityCenter.Configuration) {
        self.anchor = anchor
        self.fast = fast
        elapsed = configuration.repeat(after: .zero, sinceSave: fast)
        next = anchor.advanced(by: elapsed)
    }

    /// Moves to the first repeat after `now`: one late repeat is sent, never a catch-up storm.
    mutating func advance(past now: ContinuousClock.Instant, configuration: ActivityCenter.Configuration) {
        repeat {
            elapsed = configuration.repeat(after: elapsed, sinceSave: fast)
            next = anchor.advanced(by: elapsed)
        } while next <= now
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval` (for dates: those that travel or are shown).
    package var seconds: TimeInterval {
        let (s, atto) = components
        return TimeInterval(s) + TimeInterval(atto) / 1e18
    }

    var nanoseconds: Int64 {
        let (s, atto) = components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }
}
