import Foundation

/// Finding what is nearby and continuing it.
extension ActivityCenter {
    /// Continues an activity from the nearby list: checks it, asks the application delegate
    /// to continue it (its responders restore the state), then tells the source with CONTINUED.
    @discardableResult
    /// An activity offered for fetching (`nearby.offer`) is refused here: its record must be
    /// fetched first, which the async `continueActivity(_:progress:)` does.
    public func continueActivity(_ nearby: NearbyActivity) throws(HandoffError) -> UserActivity {
        let record = nearby.record
        let type = record.activityType
        do throws(HandoffError) {
            guard nearby.offer == nil else {
                throw HandoffError.transferFailed(
                    peer: record.peer.name, reason: "the activity is large and must be fetched first (continueActivity(_:progress:))")
            }
            try check(record, fetching: false)
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
    /// large for a datagram (`nearby.offer`): `progress` hears how far the fetch has come (the
    /// first frame, then every 15 ms at most, and the last byte), and cancelling the task stops
    /// it with `.cancelled`. Nothing is restored unless the whole
    /// record arrived and its digest matched.
    @discardableResult
    public func continueActivity(
        _ nearby: NearbyActivity, progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws(HandoffError) -> UserActivity {
        guard let offer = nearby.offer else { return try continueActivity(nearby) }
        var whole = nearby
        do throws(HandoffError) {
            // The cheap refusals first: nothing is fetched for a type this program cannot take.
            try check(nearby.record, fetching: true)
            whole.record = try await fetchRecord(nearby, offer: offer, progress: progress)
            whole.offer = nil
        } catch {
            applicationDelegate?.didFailToContinue(activityType: nearby.record.activityType, error: error)
            throw error
        }
        return try continueActivity(whole)
    }

    /// What is checked before continuing: the app takes the type, the activity has not expired,
    /// and (for a whole record, not yet for an OFFER's summary) the registry accepts it.
    private func check(_ record: ActivityRecord, fetching: Bool) throws(HandoffError) {
        let type = record.activityType
        if let delegate = applicationDelegate, !delegate.willContinue(activityType: type) {
            throw HandoffError.declined(type: type)
        }
        if record.isExpired(at: clock.now), let at = record.expiresAt { throw HandoffError.expired(type: type, at: at) }
        if fetching {
            guard registry.isDeclared(type) else { throw HandoffError.undeclaredType(type: type, declared: registry.declaredTypes) }
        } else {
            try registry.validate(type: type, userInfo: record.userInfo, requiredKeys: record.requiredUserInfoKeys ?? [])
        }
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
