import FoundationEssentials
import HandoffWire

/// The current activity and saving: coalescing, publishing, withdrawing, repeating.
extension HandoffCore {
    /// Makes an activity current; the previous one, if another, is resigned (and withdrawn).
    /// The caller then marks it as needing a save.
    mutating func makeCurrent(activityID: String, isEligible: Bool, now: ClockReading) -> [Action] {
        guard !isShutDown else { return [] }
        var actions: [Action] = []
        if let previous = current, previous.activityID != activityID {
            actions += resign(activityID: previous.activityID, now: now)
        }
        if current?.activityID != activityID {
            self.current = Current(activityID: activityID, isEligible: isEligible)
        }
        return actions
    }

    /// The activity stops being current: a pending save is dropped and peers are told with
    /// WITHDRAW if it was published.
    mutating func resign(activityID: String, now: ClockReading) -> [Action] {
        guard let current, current.activityID == activityID else { return [] }
        self.current = nil
        saveDue = nil
        saveInFlight = nil
        var actions: [Action] = []
        if lastPublished != nil, current.isEligible { actions += send(.withdraw(activityID: activityID), now: now) }
        if case .offer = lastMessage { actions.append(.unshelve(activityID: activityID)) }
        lastMessage = nil
        return actions
    }

    /// The activity became eligible for handoff (the caller marks it as needing a save) or
    /// stopped being so (peers are told with WITHDRAW).
    mutating func eligibilityChanged(activityID: String, isEligible: Bool, now: ClockReading) -> [Action] {
        guard var current, current.activityID == activityID else { return [] }
        current.isEligible = isEligible
        self.current = current
        guard !isEligible, lastPublished != nil else { return [] }
        var actions: [Action] = []
        if case .offer = lastMessage { actions.append(.unshelve(activityID: activityID)) }
        lastMessage = nil
        return send(.withdraw(activityID: activityID), now: now) + actions
    }

    /// The current activity changed. The first change after a quiet `saveWindow` is saved at
    /// once; while changes keep coming, at most one save per window; the last is always saved.
    mutating func requestSave(activityID: String, now: ClockReading) {
        guard current?.activityID == activityID, saveDue == nil, !isShutDown else { return }
        let earliest = lastSave.map { $0.advanced(by: saveWindow) } ?? now.instant
        saveDue = max(now.instant, earliest)
    }

    /// The window between saves: `saveWindow`, stretched for a large state by 1 ms per 25 KB
    /// (a 28 MB state waits 1.1 s), at most 2 s, so that typing into a big file does not share
    /// the machine with its encoding and hashing (about 45 ms of CPU for 28 MB) more than a
    /// few percent of the time.
    var saveWindow: Duration {
        let stretch = Duration.milliseconds(lastStateSize / 25_000)
        return min(max(configuration.saveWindow, stretch), max(configuration.saveWindow, .seconds(2)))
    }

    /// The hooks have run and `record` is the activity as they left it (its revision still
    /// the last one saved). Checks it, numbers it, and publishes it when eligible.
    mutating func saveFinished(_ record: ActivityRecord, now: ClockReading) -> [Action] {
        switch beginSave(record, now: now) {
        case .done(let actions): return actions
        case .encode(let record, _):
            let publication = Result { () throws(HandoffError) in try Self.publication(for: record, configuration, port: streamPort) }
            return publish(record, publication, now: now)
        }
    }

    /// What `beginSave` leaves to do.
    enum SaveStart: Sendable {
        /// Nothing more: the save failed its checks, or the activity is no longer current.
        case done([Action])
        /// The record, numbered and checked, is to be encoded (`publication(for:_:port:)`) and
        /// handed back with `encodingFinished`; `token` names this save.
        case encode(ActivityRecord, token: UInt64)
    }

    /// The first half of a save: numbers and checks `record`. Its encoding may then be made
    /// off the main actor; until `encodingFinished` the save is in flight and no other starts
    /// (a save due meanwhile waits, and is made once, of the newest state, after it).
    mutating func beginSave(_ record: ActivityRecord, now: ClockReading) -> SaveStart {
        guard let current, current.activityID == record.activityID, !isShutDown else { return .done([]) }
        var record = record
        // Saturating: an activity continued from a peer keeps the revision it arrived with, and
        // receivers accept any revision up to Int.max. (Equal revisions still replace each other.)
        record.revision = record.revision < .max ? record.revision + 1 : .max
        record.savedAt = now.date
        do throws(HandoffError) {
            try registry.validate(
                type: record.activityType, userInfo: record.userInfo, requiredKeys: record.requiredUserInfoKeys ?? [])
        } catch {
            return .done([.saveFailed(activityType: record.activityType, error: error)])
        }
        saveToken &+= 1
        saveInFlight = saveToken
        return .encode(record, token: saveToken)
    }

    /// The encoding of the save `token` is done: publishes it, unless the activity stopped
    /// being current (or the center shut down) meanwhile, when it is dropped.
    mutating func encodingFinished(
        _ record: ActivityRecord, _ publication: Result<Publication, HandoffError>, token: UInt64, now: ClockReading
    ) -> [Action] {
        guard saveInFlight == token else { return [] }
        saveInFlight = nil
        return publish(record, publication, now: now)
    }

    /// Publishes a numbered record by what `publication` made of it, at `now`.
    private mutating func publish(
        _ record: ActivityRecord, _ made: Result<Publication, HandoffError>, now: ClockReading
    ) -> [Action] {
        saveInFlight = nil
        guard let current, current.activityID == record.activityID, !isShutDown else { return [] }
        let publication: Publication
        switch made {
        case .success(let made): publication = made
        case .failure(let error): return [.saveFailed(activityType: record.activityType, error: error)]
        }
        guard current.isEligible else { return [.saved(record, published: false)] }
        lastMessage = publication.message
        lastStateSize = publication.stateSize
        var actions = publication.shelve.map { [$0] } ?? []
        actions += send(publication.message, now: now)
        if isStarted { repeats = RepeatClock(anchor: now.instant, fast: true, configuration: configuration) }
        actions.append(.saved(record, published: true))
        return actions
    }
}
