import FoundationEssentials
import Handoff
import HandoffWire

/// Packing what goes out: digests, entries in datagrams, or one store state
/// (docs/PROTOCOL.md, section 18, "Store states").
extension StoreSyncCore {
    /// Sends `store`'s digests, with no entries.
    func sendDigests(of store: String, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard let digests = stores.digests(of: store) else { return [] }
        return [.send(StoreMessage(store: store, digests: digests))]
    }

    /// Sends `entries` of `store`, as many to a datagram as fit the datagram limit; when an
    /// entry does not fit alone, or they would take more than 4 datagrams, as one store state
    /// over the state stream (without one, an entry too large alone is not sent: a write
    /// refuses it before this).
    mutating func send(_ entries: [StoreEntry], of store: String, now: Instant, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard let digests = stores.digests(of: store) else { return [] }
        note(entries.map(\.version), of: store, at: now)
        let limit = configuration.maximumDatagramSize
        var batches: [[StoreEntry]] = []
        var batch: [StoreEntry] = []
        var tooLarge = false
        for entry in entries {
            // Past 4 datagrams it goes as a store state anyway: no need to size the rest.
            if configuration.canShelve, batches.count > Self.datagramsBeforeState { break }
            if Self.datagramSize(StoreMessage(store: store, digests: digests, entries: batch + [entry])) <= limit {
                batch.append(entry)
            } else if Self.datagramSize(StoreMessage(store: store, digests: digests, entries: [entry])) <= limit {
                batches.append(batch)
                batch = [entry]
            } else {
                tooLarge = true
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        let messages = batches.filter { !$0.isEmpty }.map { StoreMessage(store: store, digests: digests, entries: $0) }
        guard tooLarge || batches.count > Self.datagramsBeforeState else { return messages.map { .send($0) } }
        stateRevision += 1
        return [
            .sendState(
                StoreSyncAction.StateSend(
                    store: store, revision: stateRevision, entries: entries, digests: digests, otherwise: messages, leavesOut: tooLarge))
        ]
    }

    /// Notes that `versions` of `store` went out or came in at `now`, forgetting what is older
    /// than `inFlight`.
    mutating func note(_ versions: [StoreVersion], of store: String, at now: Instant) {
        recentlySent = recentlySent.filter { now - $0.value < Self.inFlight }
        for version in versions { recentlySent[SentKey(store: store, version: version)] = now }
    }

    /// How large `entry`'s STORE datagram alone is, and the limit, when that limit binds a
    /// write: without a state stream. Nil: any size goes (as a store state).
    package func measure(_ entry: StoreEntry, of store: String) -> (bytes: Int, limit: Int)? {
        guard !configuration.canShelve else { return nil }
        return (Self.datagramSize(StoreMessage(store: store, digests: .empty, entries: [entry])), configuration.maximumDatagramSize)
    }

    /// The datagram a message makes: header, signature and tag around its plaintext.
    package static func datagramSize(_ message: StoreMessage) -> Int {
        DatagramCodec.plaintext(.store(message), sentAt: Date(timeIntervalSinceReferenceDate: 0)).count + DatagramHeader.overhead
    }
}
