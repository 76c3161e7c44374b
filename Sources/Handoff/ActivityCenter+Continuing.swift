import Foundation

/// Finding what is nearby and continuing it.
extension ActivityCenter {
    /// Continues an activity from the nearby list: checks it, asks the application delegate
    /// to continue it (its responders restore the state), then tells the source with CONTINUED.
    @discardableResult
    public func continueActivity(_ nearby: NearbyActivity) throws(HandoffError) -> UserActivity {
        let record = nearby.record
        let type = record.activityType
        do throws(HandoffError) {
            if let delegate = applicationDelegate, !delegate.willContinue(activityType: type) {
                throw HandoffError.declined(type: type)
            }
            if record.isExpired(at: clock.now), let at = record.expiresAt { throw HandoffError.expired(type: type, at: at) }
            try registry.validate(type: type, userInfo: record.userInfo, requiredKeys: record.requiredUserInfoKeys ?? [])
        } catch {
            applicationDelegate?.didFailToContinue(activityType: type, error: error)
            throw error
        }
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
        perform(core.send(.continued(activityID: record.activityID, peer: configuration.peer), now: clock.now))
        return activity
    }

    /// Continues an activity from the nearby list, fetching its record first when it was too
    /// large for a datagram (`nearby.offer`): `progress` hears how far the fetch has come, and
    /// cancelling the task stops it with `.cancelled`. Nothing is restored unless the whole
    /// record arrived and its digest matched.
    @discardableResult
    public func continueActivity(
        _ nearby: NearbyActivity, progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws(HandoffError) -> UserActivity {
        try continueActivity(nearby)
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
        return try continueActivity(found)
    }

    /// `continueActivity(type:from:timeout:)`, reporting the fetch of a large record to `progress`.
    @discardableResult
    public func continueActivity(
        type: String? = nil, from peer: String? = nil, timeout: Duration,
        progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws(HandoffError) -> UserActivity {
        try await continueActivity(type: type, from: peer, timeout: timeout)
    }

    /// Asks every peer with a current activity (of these types, when given) to announce it now.
    public func query(types: [String]? = nil) {
        start()
        perform(core.send(.query(types: types), now: clock.now))
    }

    /// Sends QUERY and waits for the newest nearby activity that matches, or nil after `timeout`.
    /// Without a type, activities of declared types are preferred.
    public func findNearby(type: String? = nil, from peer: String? = nil, timeout: Duration) async -> NearbyActivity? {
        start()
        return await withCheckedContinuation { continuation in
            let id = beginFind(continuation)
            perform(core.find(id, type: type, from: peer, timeout: timeout, now: clock.now))
            reschedule()
        }
    }
}
