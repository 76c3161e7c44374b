import Foundation
import Handoff
import HandoffWire
import Logging

/// Keeps a program's key-value stores in step with its peers' (docs/PROTOCOL.md, section 18),
/// through an `ActivityCenter`: the digests at start and every 27–33 s, a write's entry at once,
/// the entries of the buckets that differ in answer to a peer's digests, and acknowledgements.
///
/// Every running Baton program holds one, with every store on disk, so that it answers peers.
@MainActor
public final class StoreSync {
    /// Stores held at most: an entry for another store is refused.
    public static let storeLimit = 16
    /// How long an answer waits, at most, so that peers answering one STORE do not all send at once.
    static let answerDelay: TimeInterval = 0.1
    /// An answer per store at most this often.
    static let answerSpacing: TimeInterval = 0.25
    /// What went out (or came in) less than this long before a peer's digests were heard is
    /// taken as crossing them, not sent again in the answer.
    static let crossing: TimeInterval = 0.25
    /// How long sends and takes are remembered for that.
    static let inFlight: TimeInterval = 1
    /// Acknowledgements due within this long go out together.
    static let ackDelay: TimeInterval = 0.01
    /// Digests go out again after 27–33 s.
    static let digestsInterval: ClosedRange<TimeInterval> = 27...33
    /// Versions one acknowledgement lists at most.
    static let tookLimit = 32
    /// Entries that would take more datagrams than this go as a store state.
    static let datagramsBeforeState = 4
    /// What counts as the first exchange after start (`initialSync`), at most.
    static let initialWindow: TimeInterval = 60

    public let center: ActivityCenter
    /// Where stores live on disk; nil: in memory (tests).
    public let folder: String?
    private let logger: Logger
    private(set) var stores: [String: KeyValueStore] = [:]
    /// Stores whose digests matched a peer's since start.
    private var synced: Set<String> = []
    private var startedAt: Date?
    /// Answers due, per store: the buckets still to send, and when.
    /// Answers due, per store: the buckets still to send, when, and when the newest digests
    /// that asked for them were heard.
    private var answers: [String: (buckets: Set<Int>, due: Date, heard: Date)] = [:]
    private var lastAnswer: [String: Date] = [:]
    private var timers: [String: Task<Void, Never>] = [:]
    private var periodic: Task<Void, Never>?
    /// Versions a peer said it took, with the device ids that took them.
    private var acknowledged: [StoreVersion: Set<DeviceTag>] = [:]
    private var ackWaiters: [UUID: (version: StoreVersion, continuation: CheckedContinuation<Bool, Never>)] = [:]
    /// Devices a STORE was heard from, by store.
    private(set) var heardFrom: [String: Set<SenderID>] = [:]
    private var syncWaiters: [UUID: (store: String, continuation: CheckedContinuation<Bool, Never>)] = [:]
    /// STORE datagrams taken in and refused entries, for `monitor` and tests.
    public private(set) var heardCount = 0
    public private(set) var refusedCount = 0

    /// Holds the stores in `folder` (every one on disk is opened) and answers peers through
    /// `center`, which it becomes the store listener of. Stores whose files cannot be used are
    /// moved aside when damaged and said in `problems`.
    public init(center: ActivityCenter, folder: String?, logger: Logger = Logger(label: "handoff.store", factory: { _ in SwiftLogNoOpLogHandler() })) {
        self.center = center
        self.folder = folder
        self.logger = logger
        center.storeListener = { [weak self] message, sender, host in self?.heard(message, from: sender, host: host) }
        if let folder {
            for name in StoreFile.names(in: folder).prefix(Self.storeLimit) { _ = try? store(named: name) }
        }
    }

    /// What went wrong opening stores: a sentence each.
    public private(set) var problems: [String] = []

    /// The store named `name`, opened (or made) on first use. Throws when the file is there
    /// but cannot be read; a damaged file is moved aside and the store starts empty, to be
    /// rebuilt from peers (said in `problems`).
    public func store(named name: String) throws(StoreFile.ReadProblem) -> KeyValueStore {
        if let store = stores[name] { return store }
        precondition(StoreMessage.isValidName(name), "not a store name: \(name)")
        let file = folder.map { StoreFile(folder: $0, name: name) }
        let store: KeyValueStore
        do {
            store = try KeyValueStore(name: name, writer: center.senderID, file: file, clock: center.clock)
        } catch {
            guard case .damaged(let reason) = error, let file else {
                if case .unreadable(let sentence) = error, !problems.contains(sentence) { problems.append(sentence) }
                throw error
            }
            let aside = file.moveAside(now: center.clock.date)
            problems.append(
                "The store \(file.path) was damaged (\(reason)); it was moved to \(aside ?? "nowhere: it could not be moved") "
                    + "and the store is rebuilt from peers.")
            store = try KeyValueStore(name: name, writer: center.senderID, file: file, clock: center.clock)
        }
        attach(store)
        return store
    }

    /// The names of the stores held.
    public var storeNames: [String] { stores.keys.sorted() }

    private func attach(_ store: KeyValueStore) {
        stores[store.name] = store
        let limit = center.configuration.maximumDatagramSize
        // With a state stream any entry travels (as a store state); without, one datagram is the limit.
        store.measure = { [weak self] entry in
            guard let self, self.center.stateStream == nil else { return nil }
            return (self.datagramSize(StoreMessage(store: store.name, digests: .empty, entries: [entry])), limit)
        }
        store.onWrites = { [weak self, weak store] entries in
            guard let self, let store, !entries.isEmpty else { return }
            self.send(entries, of: store)
        }
        if startedAt != nil { sendDigests(of: store) }
    }

    // MARK: Life

    /// Sends every store's digests, and again every 27–33 s. Call once the center has started.
    public func start() {
        guard startedAt == nil else { return }
        startedAt = center.clock.date
        for store in stores.values { sendDigests(of: store) }
        schedulePeriodic()
        if folder != nil { watchFiles() }
    }

    /// Once a second, takes what other programs of this machine wrote to the stores' files
    /// (`baton kv set` beside a running app): they sent it to peers themselves.
    private func watchFiles() {
        let clock = center.clock
        watcher = Task { @MainActor [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(untilDate: clock.date.addingTimeInterval(Self.fileCheckInterval)) } catch { return }
                guard let self else { return }
                for store in self.stores.values {
                    // Sent again from here: the program that wrote them may have had no network.
                    let keys = store.reloadIfChanged()
                    let entries = keys.compactMap { store.entry(forKey: $0) }
                    if !entries.isEmpty { self.send(entries, of: store) }
                }
                // A store another program made since.
                if let folder = self.folder, self.stores.count < Self.storeLimit {
                    for name in StoreFile.names(in: folder) where self.stores[name] == nil { _ = try? self.store(named: name) }
                }
            }
        }
    }

    private var watcher: Task<Void, Never>?
    /// How often the stores' files are checked for other programs' writes.
    static let fileCheckInterval: TimeInterval = 1

    /// Writes what is unwritten and stops sending.
    public func stop() {
        periodic?.cancel()
        periodic = nil
        watcher?.cancel()
        watcher = nil
        for timer in timers.values { timer.cancel() }
        timers.removeAll()
        for store in stores.values { try? store.synchronize() }
        for waiter in ackWaiters.values { waiter.continuation.resume(returning: false) }
        ackWaiters.removeAll()
        for waiter in syncWaiters.values { waiter.continuation.resume(returning: false) }
        syncWaiters.removeAll()
    }

    private func schedulePeriodic() {
        let clock = center.clock
        let wait = TimeInterval.random(in: Self.digestsInterval)
        let due = clock.date.addingTimeInterval(wait)
        periodic = Task { @MainActor [weak self] in
            do { try await clock.sleep(untilDate: due) } catch { return }
            guard let self else { return }
            for store in self.stores.values { self.sendDigests(of: store) }
            self.schedulePeriodic()
        }
    }

    // MARK: Waiting for peers

    /// Waits until another sender (a peer, or another program of this device) says it took
    /// `version`, or `timeout` passes: true when one did.
    public func waitForPeer(toTake version: StoreVersion, timeout: TimeInterval) async -> Bool {
        if acknowledged[version]?.isEmpty == false { return true }
        let id = UUID()
        let clock = center.clock
        let deadline = clock.date.addingTimeInterval(timeout)
        let timer = Task { @MainActor [weak self] in
            try? await clock.sleep(untilDate: deadline)
            self?.ackWaiters.removeValue(forKey: id)?.continuation.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            ackWaiters[id] = (version, continuation)
        }
    }

    /// Waits until a peer's digests of `store` matched this device's, or `timeout` passes: true
    /// when they did.
    public func waitForSync(of store: String, timeout: TimeInterval) async -> Bool {
        if synced.contains(store) { return true }
        let id = UUID()
        let clock = center.clock
        let deadline = clock.date.addingTimeInterval(timeout)
        let timer = Task { @MainActor [weak self] in
            try? await clock.sleep(untilDate: deadline)
            self?.syncWaiters.removeValue(forKey: id)?.continuation.resume(returning: false)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            syncWaiters[id] = (store, continuation)
        }
    }

    /// Whether any peer's STORE for `store` was heard since start.
    public func heardPeer(for store: String) -> Bool { heardFrom[store]?.isEmpty == false }

    // MARK: Receiving

    func heard(_ message: StoreMessage, from sender: SenderID, host: String?) {
        heardCount += 1
        let newSender = heardFrom[message.store, default: []].insert(sender).inserted
        for version in message.took {
            acknowledged[version, default: []].insert(sender.tag)
            for (id, waiter) in ackWaiters where waiter.version == version {
                ackWaiters.removeValue(forKey: id)
                waiter.continuation.resume(returning: true)
            }
        }
        let store: KeyValueStore
        if let held = stores[message.store] {
            store = held
        } else {
            // A store not held is made only for an entry that is taken, and only up to the limit.
            // Digests alone are answered with the digests of an empty store, so that the peer
            // that holds it sends its entries.
            guard stores.count < Self.storeLimit else {
                refusedCount += message.entries.count
                return
            }
            guard !message.entries.isEmpty || message.state != nil else {
                if message.digests != .empty { answerAsEmpty(message.store, now: center.clock.date) }
                return
            }
            guard let made = try? self.store(named: message.store) else {
                refusedCount += message.entries.count
                return
            }
            store = made
        }
        if let state = message.state {
            // The entries come over the state stream; the digests are compared once they are here.
            if let host { fetch(state, of: store, digests: message.digests, from: sender, host: host) }
            return
        }
        take(message.entries, into: store, digests: message.digests, newSender: newSender, writer: sender)
    }

    /// Fetches a store state from `sender` at `host`, one per store and sender at a time, and
    /// takes its entries as a datagram's.
    private func fetch(_ state: StoreState, of store: KeyValueStore, digests: StoreDigests, from sender: SenderID, host: String) {
        let flight = FetchKey(store: store.name, sender: sender)
        guard !fetching.contains(flight) else { return }
        fetching.insert(flight)
        fetches += 1
        let center = center
        Task { @MainActor [weak self] in
            let entries: [StoreEntry]?
            do {
                entries = try StoreState.decode(try await center.fetchStoreState(state, store: store.name, from: sender, host: host))
            } catch {
                self?.logger.warning("store \(store.name): fetching a store state from \(host) failed: \(error)")
                entries = nil
            }
            guard let self else { return }
            self.fetching.remove(flight)
            if let entries { self.take(entries, into: store, digests: digests, newSender: false, writer: sender) }
        }
    }

    private struct FetchKey: Hashable {
        let store: String
        let sender: SenderID
    }
    private var fetching: Set<FetchKey> = []
    /// Store states fetched or being fetched, for tests.
    public private(set) var fetches = 0

    /// Takes a peer's entries into `store`, acknowledges them, and answers digests that differ.
    private func take(
        _ entries: [StoreEntry], into store: KeyValueStore, digests: StoreDigests, newSender: Bool, writer: SenderID?
    ) {
        let now = center.clock.date
        let initial = !synced.contains(store.name) && now.timeIntervalSince(startedAt ?? now) < Self.initialWindow
        let taken = entries.isEmpty ? nil : store.take(entries, initial: initial)
        refusedCount += taken?.refused ?? 0
        // What just came in is not sent back to where it came from in the next answer.
        if let taken { note(taken.took, of: store.name, at: now) }
        let own = store.digests
        let differing = Set(own.buckets(differingFrom: digests))
        // Writes that came from their writer are acknowledged (what `kv set` waits for); what a
        // peer passes on in an answer is not.
        if let taken, let writer {
            let fresh = taken.took.filter { $0.writer == writer.bytes }
            if !fresh.isEmpty { acknowledge(fresh, of: store) }
        }
        // Someone else said what this device would: those buckets need no answer from here.
        if var answer = answers[store.name] {
            answer.buckets.subtract((0..<StoreDigests.bucketCount).filter { own.bucket($0) == digests.bucket($0) })
            answers[store.name] = answer
        }
        if differing.isEmpty {
            markSynced(store)
            // A program that just started learns at once that it is in step: a sender heard for
            // the first time gets these digests even though they are the same.
            if newSender, taken == nil { answerAsEqual(store, now: now) }
        } else {
            scheduleAnswer(for: store, buckets: differing, now: now)
        }
    }

    /// Acknowledges `versions` of `store` within `ackDelay`, with whatever else is due by then,
    /// in one STORE (the greatest 32: it fits a datagram whatever it answers).
    private func acknowledge(_ versions: [StoreVersion], of store: KeyValueStore) {
        let name = store.name
        let due = pendingAcks[name] != nil
        pendingAcks[name, default: []] += versions
        guard !due else { return }
        let clock = center.clock
        let at = clock.date.addingTimeInterval(Self.ackDelay)
        Task { @MainActor [weak self] in
            try? await clock.sleep(untilDate: at)
            guard let self, let versions = self.pendingAcks.removeValue(forKey: name), let store = self.stores[name] else { return }
            let took = Array(versions.sorted(by: >).prefix(Self.tookLimit))
            self.center.sendStore(StoreMessage(store: name, digests: store.digests, took: took))
        }
    }

    private var pendingAcks: [String: [StoreVersion]] = [:]

    private func markSynced(_ store: KeyValueStore) {
        store.synced()
        synced.insert(store.name)
        for (id, waiter) in syncWaiters where waiter.store == store.name {
            syncWaiters.removeValue(forKey: id)
            waiter.continuation.resume(returning: true)
        }
    }

    private func scheduleAnswer(for store: KeyValueStore, buckets: Set<Int>, now: Date) {
        let name = store.name
        if var pending = answers[name] {
            pending.buckets.formUnion(buckets)
            pending.heard = now
            answers[name] = pending
            return
        }
        var due = now.addingTimeInterval(TimeInterval.random(in: 0...Self.answerDelay))
        if let last = lastAnswer[name] { due = max(due, last.addingTimeInterval(Self.answerSpacing)) }
        answers[name] = (buckets, due, now)
        let clock = center.clock
        timers[name] = Task { @MainActor [weak self] in
            do { try await clock.sleep(untilDate: due) } catch { return }
            self?.answer(name)
        }
    }

    /// Sends `store`'s digests, at most once per `answerSpacing`, unless an answer is already due.
    private func answerAsEqual(_ store: KeyValueStore, now: Date) {
        guard answers[store.name] == nil else { return }
        if let last = lastAnswer[store.name], now.timeIntervalSince(last) < Self.answerSpacing { return }
        lastAnswer[store.name] = now
        sendDigests(of: store)
    }

    /// Sends the digests of an empty store named `name`, which this device does not hold, at
    /// most once per `answerSpacing`.
    private func answerAsEmpty(_ name: String, now: Date) {
        if let last = lastAnswer[name], now.timeIntervalSince(last) < Self.answerSpacing { return }
        lastAnswer[name] = now
        center.sendStore(StoreMessage(store: name, digests: .empty))
    }

    private func answer(_ name: String) {
        timers[name] = nil
        guard let pending = answers.removeValue(forKey: name), let store = stores[name] else { return }
        lastAnswer[name] = center.clock.date
        guard !pending.buckets.isEmpty else { return }
        // What went out (or came in) just before the digests that asked were heard is on its way:
        // those digests crossed it.
        let entries = store.entries(inBuckets: pending.buckets).filter { entry in
            guard let sent = recentlySent[SentKey(store: name, version: entry.version)] else { return true }
            return pending.heard.timeIntervalSince(sent) >= Self.crossing
        }
        if entries.isEmpty {
            sendDigests(of: store)
        } else {
            send(entries, of: store)
        }
    }

    // MARK: Sending

    private func sendDigests(of store: KeyValueStore) {
        center.sendStore(StoreMessage(store: store.name, digests: store.digests))
    }

    /// Sends `entries` of `store`, as many to a datagram as fit the datagram limit; when an
    /// entry does not fit alone, or they would take more than 4 datagrams, as one store state
    /// over the state stream (without one, an entry too large alone is not sent: a write
    /// refuses it before this).
    private func send(_ entries: [StoreEntry], of store: KeyValueStore) {
        let digests = store.digests
        note(entries.map(\.version), of: store.name, at: center.clock.date)
        let limit = center.configuration.maximumDatagramSize
        var batches: [[StoreEntry]] = []
        var batch: [StoreEntry] = []
        var tooLarge = false
        let canShelve = center.stateStream != nil
        for entry in entries {
            // Past 4 datagrams it goes as a store state anyway: no need to size the rest.
            if canShelve, batches.count > Self.datagramsBeforeState { break }
            if datagramSize(StoreMessage(store: store.name, digests: digests, entries: batch + [entry])) <= limit {
                batch.append(entry)
            } else if datagramSize(StoreMessage(store: store.name, digests: digests, entries: [entry])) <= limit {
                batches.append(batch)
                batch = [entry]
            } else {
                tooLarge = true
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        if tooLarge || batches.count > Self.datagramsBeforeState {
            stateRevision += 1
            if let state = center.shelveStoreState(store: store.name, revision: stateRevision, make: { StoreState.encode(entries) }) {
                center.sendStore(StoreMessage(store: store.name, digests: digests, state: state))
                return
            }
            if tooLarge { logger.warning("store \(store.name): an entry does not fit a datagram, and there is no state stream; not sent") }
        }
        for batch in batches where !batch.isEmpty {
            center.sendStore(StoreMessage(store: store.name, digests: digests, entries: batch))
        }
    }

    private var stateRevision = 0

    private struct SentKey: Hashable {
        let store: String
        let version: StoreVersion
    }
    /// Entries sent or taken in the last second, and when.
    private var recentlySent: [SentKey: Date] = [:]

    private func note(_ versions: [StoreVersion], of store: String, at now: Date) {
        recentlySent = recentlySent.filter { now.timeIntervalSince($0.value) < Self.inFlight }
        for version in versions { recentlySent[SentKey(store: store, version: version)] = now }
    }

    /// Whether a peer's digests of `store` matched this device's since start.
    public func isSynced(_ store: String) -> Bool { synced.contains(store) }

    /// The datagram a message makes: header, signature and tag around its plaintext.
    func datagramSize(_ message: StoreMessage) -> Int {
        DatagramCodec.plaintext(.store(message), sentAt: Date(timeIntervalSinceReferenceDate: 0)).count + DatagramHeader.overhead
    }
}
