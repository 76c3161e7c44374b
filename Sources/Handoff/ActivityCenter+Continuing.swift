import FoundationEssentials
import HandoffWire

/// Finding what is nearby and continuing it.
extension ActivityCenter {
    /// Continues an activity from the nearby list: checks it, asks the application delegate
    /// to continue it (its responders restore the state), then tells the source with CONTINUED.
    /// An activity offered for fetching (`nearby.offer`) is refused here: its record must be
    /// fetched first, which the async `continueActivity(_:progress:)` does.
    @discardableResult
    public func continueActivity(_ nearby: NearbyActivity) throws(HandoffError) -> UserActivity {
        let record = nearby.record
        do throws(HandoffError) {
            guard nearby.offer == nil else {
                throw HandoffError.transferFailed(
                    peer: record.peer.name, reason: "the activity is large and must be fetched first (continueActivity(_:progress:))")
            }
            try check(record)
            try validate(record)
        } catch {
            applicationDelegate?.didFailToContinue(activityType: record.activityType, error: error)
            throw error
        }
        let activity = try restore(record)
        activity.continuedFrom = nearby
        return activity
    }

    /// Hands a checked, whole record to the application delegate's responders, then tells the
    /// source with CONTINUED.
    private func restore(_ record: ActivityRecord) throws(HandoffError) -> UserActivity {
        let type = record.activityType
        let activity = UserActivity(record: record, center: self)
        if let delegate = applicationDelegate {
            let handled = delegate.continue(activity) { responders in
                for responder in responders { responder.restoreUserActivityState(activity) }
            }
            guard handled else {
                let error = HandoffError.declined(type: type)
                delegate.didFailToContinue(activityType: type, error: error)
                throw error
            }
        }
        perform(core.send(.continued(activityID: record.activityID, peer: configuration.peer), now: clock.reading))
        return activity
    }

    /// Continues an activity from the nearby list, fetching its record first when it was too
    /// large for a datagram (`nearby.offer`): `progress` hears how far the fetch has come (the
    /// first frame, then every 15 ms at most, and the last byte), and cancelling the task stops
    /// it with `.cancelled`. Nothing is restored unless the whole
    /// record arrived and its digest matched.
    @discardableResult
    public func continueActivity(
        _ nearby: NearbyActivity, progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws(HandoffError) -> UserActivity {
        guard let offer = nearby.offer else { return try continueActivity(nearby) }
        let record: ActivityRecord
        do throws(HandoffError) {
            // The cheap refusals first: nothing is fetched for a type this program cannot take.
            try check(nearby.record)
            guard registry.isDeclared(nearby.record.activityType) else {
                throw HandoffError.undeclaredType(type: nearby.record.activityType, declared: registry.declaredTypes)
            }
            record = try await fetchRecord(nearby, offer: offer, progress: progress)
            try validate(record)
        } catch {
            applicationDelegate?.didFailToContinue(activityType: nearby.record.activityType, error: error)
            throw error
        }
        let activity = try restore(record)
        activity.continuedFrom = nearby
        return activity
    }

    /// What is checked before anything is fetched or restored: the app takes the type, and the
    /// activity has not expired.
    private func check(_ record: ActivityRecord) throws(HandoffError) {
        let type = record.activityType
        if let delegate = applicationDelegate, !delegate.willContinue(activityType: type) {
            throw HandoffError.declined(type: type)
        }
        if record.isExpired(at: clock.date), let at = record.expiresAt { throw HandoffError.expired(type: type, at: at) }
    }

    /// The whole record fits its declared type's schema and has its required keys.
    private func validate(_ record: ActivityRecord) throws(HandoffError) {
        try registry.validate(
            type: record.activityType, userInfo: record.userInfo, requiredKeys: record.requiredUserInfoKeys ?? [])
    }

    /// Asks peers with QUERY, waits up to `timeout` for a matching activity (of `type`, from a
    /// peer named `peer`, when given), and continues the newest one found.
    @discardableResult
    public func continueActivity(type: String? = nil, from peer: String? = nil, timeout: Duration)
        async throws(HandoffError) -> UserActivity
    {
        let found = await findNearby(type: type, from: peer, timeout: timeout)
        guard let found else {
            let error = HandoffError.notFound(type: type, peer: peer, waited: timeout, endpoint: transport.endpointDescription)
            applicationDelegate?.didFailToContinue(activityType: type ?? "*", error: error)
            throw error
        }
        return try await continueActivity(found, progress: { _ in })
    }

    /// `continueActivity(type:from:timeout:)`, reporting the fetch of a large record to `progress`.
    @discardableResult
    public func continueActivity(
        type: String? = nil, from peer: String? = nil, timeout: Duration,
        progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws(HandoffError) -> UserActivity {
        let found = await findNearby(type: type, from: peer, timeout: timeout)
        guard let found else {
            let error = HandoffError.notFound(type: type, peer: peer, waited: timeout, endpoint: transport.endpointDescription)
            applicationDelegate?.didFailToContinue(activityType: type ?? "*", error: error)
            throw error
        }
        return try await continueActivity(found, progress: progress)
    }

    /// Asks every peer with a current activity (of these types, when given) to announce it now.
    public func query(types: [String]? = nil) {
        start()
        perform(core.send(.query(types: types), now: clock.reading))
    }

    /// Sends QUERY and waits for the newest nearby activity that matches, or nil after `timeout`.
    /// Without a type, activities of declared types are preferred.
    public func findNearby(type: String? = nil, from peer: String? = nil, timeout: Duration) async -> NearbyActivity? {
        start()
        return await withCheckedContinuation { continuation in
            let id = beginFind(continuation)
            perform(core.find(id, type: type, from: peer, timeout: timeout, now: clock.reading))
            reschedule()
        }
    }
}
