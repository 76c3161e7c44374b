import FoundationEssentials

/// Finding a nearby activity to continue: QUERY, then gather answers and pick the newest.
extension HandoffCore {
    /// Asks peers with QUERY for activities (of `type`, when given) and starts gathering
    /// matches; `.found(id, …)` comes once the gathering window after the QUERY has passed and
    /// something matched, or with nil after `timeout`. When nothing matched by the end of the
    /// window, the first match to arrive later opens a second window as long, so that what
    /// arrives with it (a relay's kept activities come one after another once it connects, and
    /// live answers follow) is weighed too.
    mutating func find(_ id: FindID, type: String?, from peer: String?, timeout: Duration, now: ClockReading) -> [Action] {
        guard !isShutDown else { return [.found(id, nil)] }
        var actions = send(.query(types: type.map { [$0] }), now: now)
        var pending = PendingFind(
            type: type, peer: peer,
            gatherUntil: now.instant.advanced(by: configuration.queryGatherWindow),
            deadline: now.instant.advanced(by: timeout),
            retryInterval: configuration.queryRetryInterval, now: now.instant)
        for entry in directory.activities { pending.consider(entry) }
        finds[id] = pending
        actions += checkFinds(now: now)
        return actions
    }

    /// Gives every pending find a look at an activity as it arrives, so one that a flood
    /// pushes out of the directory a moment later is still found.
    mutating func offerToFinds(_ entry: NearbyActivity) {
        for id in finds.keys { finds[id]?.consider(entry) }
    }

    /// Ends the finds that are due: a match once gathering is over, nil at the deadline.
    mutating func checkFinds(now: ClockReading) -> [Action] {
        guard !finds.isEmpty else { return [] }
        var actions: [Action] = []
        for id in finds.keys.sorted() {
            guard var pending = finds[id] else { continue }
            let best = pending.best(at: now.date, registry: registry)
            if !pending.gathered, now.instant >= pending.gatherUntil { pending.windowEnded(empty: best == nil) }
            if pending.gathered, best != nil, pending.mayGatherAgain {
                // The first match after an empty window: gather once more before picking.
                pending.gatherAgain(from: now.instant, window: configuration.queryGatherWindow)
            }
            if now.instant >= pending.deadline || (pending.gathered && best != nil) {
                finds[id] = nil
                actions.append(.found(id, best))
                continue
            }
            if best == nil, let due = pending.queryAgainAt, due <= now.instant {
                // Nothing heard yet: the QUERY or every answer may have been lost. Ask again.
                pending.askedAgain(at: now.instant)
                actions += send(.query(types: pending.type.map { [$0] }), now: now)
            }
            finds[id] = pending
        }
        return actions
    }
}

/// One `find` waiting for a match: every matching activity it was offered, the newest
/// revision of each.
struct PendingFind: Equatable, Sendable {
    let type: String?
    let peer: String?
    private(set) var gatherUntil: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant
    /// The gathering window has passed: the next match ends the find.
    var gathered = false
    /// The first window ended with no match, and no second one was opened yet: the first match
    /// to arrive opens it.
    private(set) var mayGatherAgain = false
    private var candidates: [String: NearbyActivity] = [:]

    /// When to send the QUERY again if nothing has been heard; nil when retries are off.
    private(set) var queryAgainAt: ContinuousClock.Instant?
    private var retryInterval: Duration

    init(
        type: String?, peer: String?, gatherUntil: ContinuousClock.Instant, deadline: ContinuousClock.Instant,
        retryInterval: Duration = .zero, now: ContinuousClock.Instant? = nil
    ) {
        self.type = type
        self.peer = peer
        self.gatherUntil = gatherUntil
        self.deadline = deadline
        self.retryInterval = retryInterval
        if retryInterval > .zero, let now { queryAgainAt = now.advanced(by: retryInterval) }
    }

    /// The gathering window passed, with no match yet when `empty`.
    mutating func windowEnded(empty: Bool) {
        gathered = true
        mayGatherAgain = empty
    }

    /// Opens the second gathering window at `now` (the first match arrived after the first
    /// window ended empty), ending by the deadline at the latest.
    mutating func gatherAgain(from now: ContinuousClock.Instant, window: Duration) {
        mayGatherAgain = false
        gatherUntil = min(now.advanced(by: window), deadline)
        gathered = now >= gatherUntil
    }

    /// The QUERY went out again at `now`: the next one waits twice as long.
    mutating func askedAgain(at now: ContinuousClock.Instant) {
        retryInterval *= 2
        queryAgainAt = now.advanced(by: retryInterval)
    }

    /// When this find next needs a look: the end of gathering, then its deadline, and the next
    /// QUERY while nothing has been heard.
    var nextDeadline: ContinuousClock.Instant {
        let window = gathered ? deadline : min(gatherUntil, deadline)
        guard candidates.isEmpty, let again = queryAgainAt else { return window }
        return min(window, again)
    }

    /// Keeps `entry` if it is of the type and peer asked for.
    mutating func consider(_ entry: NearbyActivity) {
        guard type == nil || entry.record.activityType == type, peer == nil || entry.record.peer.name == peer else {
            return
        }
        if let known = candidates[entry.id], known.record.revision > entry.record.revision { return }
        candidates[entry.id] = entry
    }

    /// The newest match, unexpired; without a type asked for, declared types first.
    func best(at now: Date, registry: ActivityTypeRegistry) -> NearbyActivity? {
        let matches = candidates.values.filter { !$0.record.isExpired(at: now) }
            .sorted { ($0.record.savedAt, $0.id) > ($1.record.savedAt, $1.id) }
        if type == nil, let declared = matches.first(where: { registry.isDeclared($0.record.activityType) }) {
            return declared
        }
        return matches.first
    }
}
