import FoundationEssentials
import HandoffWire
import PropertyList

/// What `UserActivity` asks of its center, and the save hooks.
extension ActivityCenter {
    func makeCurrent(_ activity: UserActivity) {
        guard isRunning else { return }
        if let previous = currentActivity, previous !== activity { resign(previous) }
        guard currentActivity !== activity else { return }
        currentActivity = activity
        remember(activity)
        perform(core.makeCurrent(activityID: activity.activityID, isEligible: activity.isEligibleForHandoff, now: clock.reading))
        activity.needsSave = true
        activityNeedsSave(activity)
    }

    func resign(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        currentActivity = nil
        perform(core.resign(activityID: activity.activityID, now: clock.reading))
    }

    func eligibilityChanged(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        perform(core.eligibilityChanged(activityID: activity.activityID, isEligible: activity.isEligibleForHandoff, now: clock.reading))
        if activity.isEligibleForHandoff { activity.needsSave = true }
    }

    func activityNeedsSave(_ activity: UserActivity) {
        guard currentActivity === activity else { return }
        core.requestSave(activityID: activity.activityID, now: clock.reading)
        reschedule()
    }

    /// Runs the three hooks in order, then hands the record to the core to check and publish.
    func save(_ activity: UserActivity) {
        saveCount += 1
        activity.isSaving = true
        activity.delegate?.userActivityWillSave(activity)
        activity.responder?.updateUserActivityState(activity)
        applicationDelegate?.didUpdate(activity)
        activity.isSaving = false
        activity.needsSave = false
        guard currentActivity === activity else { return }
        let record = activity.record(peer: configuration.peer)
        // A small state is encoded here and now, as it costs little; a large one (a big file's
        // text) off the main actor, so that keys are not kept waiting behind its encoding and
        // SHA-256. Either way it is numbered and checked here, in save order. Without a state
        // stream a large state cannot go out (the save fails, `payloadTooLarge`), but it takes
        // its encoding to know: that is made off the main actor all the same.
        guard record.estimatedStateSize >= configuration.offMainActorStateSize else {
            perform(core.saveFinished(record, now: clock.reading))
            reschedule()
            return
        }
        switch core.beginSave(record, now: clock.reading) {
        case .done(let actions): perform(actions)
        case .encode(let numbered, let token): encodeOffMainActor(numbered, token: token)
        }
        reschedule()
    }

    /// Makes the state encoding of the save `token` (numbered `record`) and its digest on a
    /// detached task, then hands them back to the core on the main actor. The core starts no
    /// other save until then; a change meanwhile is saved once after it, with the newest state.
    private func encodeOffMainActor(_ record: ActivityRecord, token: UInt64) {
        let configuration = configuration
        let port = core.streamPort
        let hook = beforeEncoding
        Task.detached(priority: .userInitiated) { [weak self] in
            await hook?(record)
            // On a thread of its own at a lower priority: the keys' thread comes first.
            let made = await BackgroundWork.run {
                Result { () throws(HandoffError) in
                    try HandoffCore.publication(for: record, configuration, port: port)
                }
            }
            await self?.encodingFinished(record, made, token: token)
        }
    }

    private func encodingFinished(
        _ record: ActivityRecord, _ made: Result<HandoffCore.Publication, HandoffError>, token: UInt64
    ) {
        encodingsHandedBack += 1
        guard !isShutDown else { return }
        perform(core.encodingFinished(record, made, token: token, now: clock.reading))
        reschedule()
    }

    /// Whether a save's encoding is being made off the main actor.
    var isEncoding: Bool { core.saveInFlight != nil }
}

extension ActivityRecord {
    /// A cheap estimate of the bytes of this record's state encoding: the lengths of its
    /// strings and data (a string's UTF-8 length costs nothing to read), without encoding it.
    var estimatedStateSize: Int {
        userInfo.reduce(title?.utf8.count ?? 0) { $0 + $1.key.utf8.count + $1.value.estimatedSize }
    }
}

extension PropertyListValue {
    /// About the bytes this value takes encoded, counted without encoding it.
    var estimatedSize: Int {
        switch self {
        case .string(let s): s.utf8.count
        case .data(let d): d.count
        case .integer, .real, .date, .boolean: 8
        case .array(let values): values.reduce(0) { $0 + $1.estimatedSize }
        case .dictionary(let entries): entries.reduce(0) { $0 + $1.key.utf8.count + $1.value.estimatedSize }
        }
    }
}

extension ActivityCenter {
    /// Trims the shelf's revisions before the newest (`StateShelf.trimSuperseded`) every
    /// `StateShelf.supersededKeptFor` on the center's clock while one is kept: the text of the
    /// save before, 16 MB for a 16 MB file, is not held beside the newest for nobody.
    func trimShelfLater() {
        guard let shelf = stateStream?.shelf, shelf.armTrim() else { return }
        clock.onMainActor(at: clock.now + StateShelf.supersededKeptFor) { [weak self] in
            guard let self, self.isRunning else { return }
            if shelf.trimSuperseded() { self.trimShelfLater() }
        }
    }
}
