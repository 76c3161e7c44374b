import FoundationEssentials
import HandoffWire

/// What accepted datagrams do: the directory, QUERY answers, CONTINUED.
extension HandoffCore {
    /// Takes what the bus delivers of the activities' kinds: plain repeats, then what changes
    /// things, in arrival order. The nearby list is reported changed once per delivery.
    mutating func receive(_ delivery: BusDelivery, now: ClockReading) -> [Action] {
        guard !isShutDown else { return [] }
        noteTime(now)
        var actions: [Action] = []
        var changed = false
        for arrival in delivery.refreshes + delivery.arrivals {
            changed = handle(arrival, now: now, actions: &actions) || changed
        }
        if changed { actions.append(.nearbyChanged) }
        actions += checkFinds(now: now)
        return actions
    }

    /// Acts on one accepted message; true when the nearby list changed.
    private mutating func handle(_ arrival: ReceiveGate.Arrival, now: ClockReading, actions: inout [Action]) -> Bool {
        switch arrival.message {
        case .announce(let record), .offer(let record, _):
            let latestSavedAt = arrival.at.addingTimeInterval(configuration.allowedClockSkew)
            switch directory.announce(
                record, offer: arrival.message.stateOffer, from: arrival.sender, at: arrival.at, source: arrival.source,
                digest: arrival.digest, latestSavedAt: latestSavedAt)
            {
            case .added(let entry), .updated(let entry):
                offerToFinds(entry)
                return true
            case .removed, nil:
                return false
            }
        case .withdraw(let id):
            return directory.withdraw(activityID: id, from: arrival.sender) != nil
        case .query(let types):
            answerQuery(types: types, from: arrival.sender, now: now)
        case .continued(let id, let peer):
            actions.append(.continued(activityID: id, by: peer))
        case .devices, .store:
            // Other services' kinds: the bus hands them to those.
            break
        }
        return false
    }

    /// Schedules a repeat of the current ANNOUNCE after a random delay of up to
    /// `queryAnswerDelay`, so that peers answering one QUERY do not all send at once. One
    /// answer is pending at a time; a QUERY for other types is not answered; answers are
    /// limited per asker and in all (`QueryAnswerLimit`).
    private mutating func answerQuery(types: [String]?, from asker: SenderID, now: ClockReading) {
        guard let record = lastPublished else { return }
        if let types, !types.contains(record.activityType) { return }
        guard queryAnswers.allows(asker, at: now.date, pending: queryAnswerDue != nil), queryAnswerDue == nil else { return }
        let maxDelay = max(0, configuration.queryAnswerDelay.nanoseconds)
        let delay = Int64.random(in: 0...maxDelay, using: &random)
        queryAnswerDue = now.instant.advanced(by: .nanoseconds(delay))
    }
}
