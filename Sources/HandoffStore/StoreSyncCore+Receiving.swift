import FoundationEssentials
import Handoff
import HandoffWire

/// Hearing a peer's STORE: acknowledgements it carries, entries to take, digests to compare, and
/// the answers they call for (docs/PROTOCOL.md, section 18, "When STORE datagrams are sent").
extension StoreSyncCore {
    /// A STORE from `sender`, heard from `host` (where its store state is fetched) at `now`.
    package mutating func heard(
        _ message: StoreMessage, from sender: SenderID, host: String?, now: Instant, stores: some StoreSyncStores
    ) -> [StoreSyncAction] {
        guard !isStopped else { return [] }
        heardCount += 1
        let newSender = heardFrom[message.store, default: []].insert(sender).inserted
        var actions: [StoreSyncAction] = []
        for version in message.took {
            acknowledged[version, default: []].insert(sender.tag)
            actions += ended(.took(version))
        }
        if stores.digests(of: message.store) == nil {
            // A store not held is made only for an entry that is taken, and only up to the limit.
            // Digests alone are answered with the digests of an empty store, so that the peer
            // that holds it sends its entries.
            guard stores.storeNames.count < Self.storeLimit else {
                refusedCount += message.entries.count
                return actions
            }
            guard !message.entries.isEmpty || message.state != nil else {
                if message.digests != .empty { actions += answerAsEmpty(message.store, now: now) }
                return actions
            }
            actions.append(.open(message.store))
        }
        if let state = message.state {
            // The entries come over the state stream; the digests are compared once they are here.
            if let host { actions += fetch(state, of: message.store, digests: message.digests, from: sender, host: host) }
            return actions
        }
        let request = StoreSyncAction.TakeRequest(
            store: message.store, entries: message.entries, digests: message.digests, newSender: newSender, sender: sender,
            initial: isInitial(message.store, now: now))
        if message.entries.isEmpty {
            return actions + compare(request, taken: nil, now: now, stores: stores)
        }
        return actions + [.take(request)]
    }

    /// The entries of `request` were taken (`taken`; nil: the store could not be opened, and
    /// they are refused).
    package mutating func taken(
        _ request: StoreSyncAction.TakeRequest, _ taken: StoreContents.Taken?, now: Instant, stores: some StoreSyncStores
    ) -> [StoreSyncAction] {
        guard !isStopped else { return [] }
        guard let taken else {
            refusedCount += request.entries.count
            return []
        }
        return compare(request, taken: taken, now: now, stores: stores)
    }

    /// A fetch of `request` ended, with the state's entries or (nil) without.
    package mutating func fetched(
        _ request: StoreSyncAction.FetchRequest, entries: [StoreEntry]?, now: Instant, stores: some StoreSyncStores
    ) -> [StoreSyncAction] {
        fetching.remove(FetchKey(store: request.store, sender: request.sender))
        guard let entries, !isStopped else { return [] }
        let take = StoreSyncAction.TakeRequest(
            store: request.store, entries: entries, digests: request.digests, newSender: false, sender: request.sender,
            initial: isInitial(request.store, now: now))
        return entries.isEmpty ? compare(take, taken: nil, now: now, stores: stores) : [.take(take)]
    }

    /// A fetch of `request` did not start: the store is not held.
    package mutating func fetchAbandoned(_ request: StoreSyncAction.FetchRequest) {
        if fetching.remove(FetchKey(store: request.store, sender: request.sender)) != nil { fetches -= 1 }
    }

    /// Fetches a store state from `sender` at `host`, one per store and sender at a time.
    private mutating func fetch(
        _ state: StoreState, of store: String, digests: StoreDigests, from sender: SenderID, host: String
    ) -> [StoreSyncAction] {
        guard fetching.insert(FetchKey(store: store, sender: sender)).inserted else { return [] }
        fetches += 1
        return [.fetch(StoreSyncAction.FetchRequest(store: store, state: state, digests: digests, sender: sender, host: host))]
    }

    /// Whether what a peer brings to `store` now is told as `initialSync`: the first exchange,
    /// within a minute of start.
    func isInitial(_ store: String, now: Instant) -> Bool {
        guard !synced.contains(store) else { return false }
        return startedAt.map { now - $0 < Self.initialWindow } ?? true
    }

    /// After taking a peer's entries (`taken`; nil when it carried none): acknowledges what came
    /// from its writer, and compares the digests it carried.
    private mutating func compare(
        _ request: StoreSyncAction.TakeRequest, taken: StoreContents.Taken?, now: Instant, stores: some StoreSyncStores
    ) -> [StoreSyncAction] {
        let name = request.store
        refusedCount += taken?.refused ?? 0
        // Writes that came from their writer are acknowledged (what `kv set` waits for); what a
        // peer passes on in an answer is not. A write this device took from another sender less
        // than a second ago (another program of the writer's machine found it in the file and
        // sent it first) is acknowledged too when the writer's own datagram brings it.
        if let taken {
            let fresh = taken.took.filter { $0.writer == request.sender.bytes }
            let tookNow = Set(taken.took)
            let justHeld = request.entries.map(\.version).filter { version in
                guard version.writer == request.sender.bytes, !tookNow.contains(version),
                    let at = recentlySent[SentKey(store: name, version: version)] else { return false }
                return now - at < Self.inFlight
            }
            if !(fresh + justHeld).isEmpty { acknowledge(fresh + justHeld, of: name, now: now) }
        }
        // What just came in is not sent back to where it came from in the next answer.
        if let taken { note(taken.took, of: name, at: now) }
        guard let own = stores.digests(of: name) else { return [] }
        let differing = Set(own.buckets(differingFrom: request.digests))
        // Someone else said what this device would: those buckets need no answer from here.
        if var answer = answers[name] {
            answer.buckets.subtract((0..<StoreDigests.bucketCount).filter { own.bucket($0) == request.digests.bucket($0) })
            answers[name] = answer
        }
        guard differing.isEmpty else {
            scheduleAnswer(for: name, buckets: differing, now: now)
            return []
        }
        synced.insert(name)
        var actions: [StoreSyncAction] = [.synced(store: name)] + ended(.synced(name))
        // A program that just started learns at once that it is in step: a sender heard for
        // the first time gets these digests even though they are the same.
        if request.newSender, taken == nil { actions += answerAsEqual(name, now: now, stores: stores) }
        return actions
    }

    /// Acknowledges `versions` of `store` within `ackDelay`, with whatever else is due by then.
    private mutating func acknowledge(_ versions: [StoreVersion], of store: String, now: Instant) {
        if pendingAcks[store] != nil {
            pendingAcks[store]!.versions += versions
        } else {
            pendingAcks[store] = (versions, now + Self.ackDelay)
        }
    }

    /// Answers the `buckets` of `store` after 0–100 ms, no sooner than `answerSpacing` after the
    /// last answer; an answer already due takes them in.
    private mutating func scheduleAnswer(for store: String, buckets: Set<Int>, now: Instant) {
        if var pending = answers[store] {
            pending.buckets.formUnion(buckets)
            pending.heard = now
            answers[store] = pending
            return
        }
        var due = now + jitter(in: .zero ... Self.answerDelay)
        if let last = lastAnswer[store] { due = max(due, last + Self.answerSpacing) }
        answers[store] = PendingAnswer(buckets: buckets, due: due, heard: now)
    }

    /// The answer for `store` is due: the entries of the buckets still asked for, but those
    /// that crossed the digests that asked; the digests alone when none is left.
    mutating func answer(_ store: String, now: Instant, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard let pending = answers.removeValue(forKey: store), stores.digests(of: store) != nil else { return [] }
        lastAnswer[store] = now
        guard !pending.buckets.isEmpty else { return [] }
        // What went out (or came in) just before the digests that asked were heard is on its way:
        // those digests crossed it.
        let entries = stores.entries(of: store, inBuckets: pending.buckets).filter { entry in
            guard let sent = recentlySent[SentKey(store: store, version: entry.version)] else { return true }
            return pending.heard - sent >= Self.crossing
        }
        return entries.isEmpty ? sendDigests(of: store, stores: stores) : send(entries, of: store, now: now, stores: stores)
    }

    /// Sends `store`'s digests, at most once per `answerSpacing`, unless an answer is already due.
    private mutating func answerAsEqual(_ store: String, now: Instant, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard answers[store] == nil else { return [] }
        if let last = lastAnswer[store], now - last < Self.answerSpacing { return [] }
        lastAnswer[store] = now
        return sendDigests(of: store, stores: stores)
    }

    /// Sends the digests of an empty store named `name`, which this device does not hold, at
    /// most once per `answerSpacing`.
    private mutating func answerAsEmpty(_ name: String, now: Instant) -> [StoreSyncAction] {
        if let last = lastAnswer[name], now - last < Self.answerSpacing { return [] }
        lastAnswer[name] = now
        return [.send(StoreMessage(store: name, digests: .empty))]
    }
}
