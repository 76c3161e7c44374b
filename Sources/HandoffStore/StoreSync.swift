import FoundationEssentials
import Handoff
import HandoffWire
import Logging

/// Keeps a program's key-value stores in step with its peers' (docs/PROTOCOL.md, section 18),
/// through an `ActivityCenter`: the runner of `StoreSyncCore`, which holds the rules.
///
/// It opens the stores, hands the core what happens (STORE datagrams heard, the stores' own
/// writes, fetched store states, the time) and carries out what the core answers: sends through
/// the center, takes entries into the stores, fetches store states, reads the files. It keeps one
/// timer on the center's clock, for the core's `nextDeadline`.
///
/// Every running Baton program holds one, with every store on disk, so that it answers peers.
@MainActor
public final class StoreSync {
    /// Stores held at most: an entry for another store is refused.
    public static let storeLimit = StoreSyncCore.storeLimit

    public let center: ActivityCenter
    /// Where stores live on disk; nil: in memory (tests).
    public let folder: String?
    private let logger: Logger
    private var core: StoreSyncCore
    private(set) var stores: [String: KeyValueStore] = [:]
    /// What the core asked for and is not done yet, in order; whether they are being done.
    private var queue: [StoreSyncAction] = []
    private var performing = false
    private lazy var timer = DeadlineTimer(clock: center.clock) { [weak self] in
        guard let self else { return }
        self.perform(self.core.tick(now: self.center.clock.now, stores: self))
    }
    private var continuations: [StoreSyncCore.WaitID: CheckedContinuation<Bool, Never>] = [:]
    private var nextWaitID: StoreSyncCore.WaitID = 0

    /// The resolver of each store under `resolve` (`KeyValueStore.resolver`), given to every
    /// store held and each opened later.
    public var resolvers: (@MainActor (String) -> KeyValueResolver?)? {
        didSet { for (name, store) in stores { store.resolver = resolvers?(name) } }
    }

    /// What went wrong opening stores: a sentence each.
    public private(set) var problems: [String] = []

    /// Holds the stores in `folder` (every one on disk is opened) and answers peers through
    /// `center`, which it becomes the store listener of. Stores whose files cannot be used are
    /// moved aside when damaged and said in `problems`. The jitter of its timing comes from a
    /// generator seeded with `seed` (by default, from the center's sender id).
    public init(
        center: ActivityCenter, folder: String?,
        logger: Logger = Logger(label: "handoff.store", factory: { _ in SwiftLogNoOpLogHandler() }), seed: UInt64? = nil
    ) {
        self.center = center
        self.folder = folder
        self.logger = logger
        let configuration = StoreSyncCore.Configuration(
            maximumDatagramSize: center.configuration.maximumDatagramSize, canShelve: center.stateStream != nil,
            watchesFiles: folder != nil)
        core = StoreSyncCore(configuration: configuration, random: SplitMix64(seed: seed ?? Self.seed(of: center.senderID)))
        center.storeListener = { [weak self] message, sender, host in self?.heard(message, from: sender, host: host) }
        if let folder {
            for name in StoreFile.names(in: folder).prefix(Self.storeLimit) { _ = try? store(named: name) }
        }
    }

    /// A seed from a sender id: two programs draw different jitter, and a test's run repeats.
    private static func seed(of sender: SenderID) -> UInt64 {
        sender.bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

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
        stores[name] = store
        store.measure = { [weak self] entry in self?.core.measure(entry, of: name) }
        store.resolver = resolvers?(name)
        store.onNote = { [logger] sentence in logger.notice("\(sentence)") }
        store.onWrites = { [weak self] entries in
            guard let self else { return }
            self.perform(self.core.wrote(entries, of: name, now: self.center.clock.now, stores: self))
        }
        perform(core.opened(name, stores: self))
        return store
    }

    /// The names of the stores held.
    public var storeNames: [String] { stores.keys.sorted() }

    // MARK: Life

    /// Sends every store's digests, and again every 27–33 s. Call once the center has started.
    public func start() {
        perform(core.start(now: center.clock.now, stores: self))
    }

    /// Writes what is unwritten and stops sending.
    public func stop() {
        timer.stop()
        for store in stores.values { try? store.synchronize() }
        perform(core.stop())
    }

    // MARK: Waiting for peers

    /// Waits until another sender (a peer, or another program of this device) says it took
    /// `version`, or `timeout` passes: true when one did.
    public func waitForPeer(toTake version: StoreVersion, timeout: TimeInterval) async -> Bool {
        await wait(for: .took(version), timeout: timeout)
    }

    /// Waits until a peer's digests of `store` matched this device's, or `timeout` passes: true
    /// when they did.
    public func waitForSync(of store: String, timeout: TimeInterval) async -> Bool {
        await wait(for: .synced(store), timeout: timeout)
    }

    private func wait(for awaited: StoreSyncCore.Awaited, timeout: TimeInterval) async -> Bool {
        if core.happened(awaited) { return true }
        nextWaitID += 1
        let id = nextWaitID
        let deadline = center.clock.now + .microseconds(Int64((max(0, timeout) * 1e6).rounded()))
        return await withCheckedContinuation { continuation in
            continuations[id] = continuation
            perform(core.wait(id, for: awaited, until: deadline))
        }
    }

    /// Whether any peer's STORE for `store` was heard since start.
    public func heardPeer(for store: String) -> Bool { core.heardFrom[store]?.isEmpty == false }

    /// Whether a peer's digests of `store` matched this device's since start.
    public func isSynced(_ store: String) -> Bool { core.synced.contains(store) }

    /// STORE datagrams taken in, refused entries, and store states fetched or being fetched,
    /// for `monitor` and tests.
    public var heardCount: Int { core.heardCount }
    public var refusedCount: Int { core.refusedCount }
    public var fetches: Int { core.fetches }

    // MARK: The core's runner

    private func heard(_ message: StoreMessage, from sender: SenderID, host: String?) {
        perform(core.heard(message, from: sender, host: host, now: center.clock.now, stores: self))
    }

    /// Carries out `actions` after those still queued (an action that calls the core back
    /// queues that call's actions behind the rest), then sets the timer.
    private func perform(_ actions: [StoreSyncAction]) {
        queue += actions
        guard !performing else { return }
        performing = true
        while !queue.isEmpty { run(queue.removeFirst()) }
        performing = false
        reschedule()
    }

    private func run(_ action: StoreSyncAction) {
        switch action {
        case .send(let message):
            center.sendStore(message)
        case .sendState(let send):
            if let state = center.shelveStoreState(store: send.store, revision: send.revision, make: { [entries = send.entries] in StoreState.encode(entries) }) {
                center.sendStore(StoreMessage(store: send.store, digests: send.digests, state: state))
                return
            }
            if send.leavesOut { logger.warning("store \(send.store): an entry does not fit a datagram, and there is no state stream; not sent") }
            for message in send.otherwise { center.sendStore(message) }
        case .open(let name):
            _ = try? store(named: name)
        case .take(let request):
            let taken = stores[request.store]?.take(request.entries, initial: request.initial)
            perform(core.taken(request, taken, now: center.clock.now, stores: self))
        case .fetch(let request):
            guard stores[request.store] != nil else { return core.fetchAbandoned(request) }
            fetch(request)
        case .synced(let name):
            stores[name]?.synced()
        case .resume(let id, let happened):
            continuations.removeValue(forKey: id)?.resume(returning: happened)
        case .checkFiles(let openNew):
            checkFiles(openingNew: openNew)
        }
    }

    private func fetch(_ request: StoreSyncAction.FetchRequest) {
        let center = center
        Task { [weak self] in
            var entries: [StoreEntry]?
            do {
                let bytes = try await center.fetchStoreState(request.state, store: request.store, from: request.sender, host: request.host)
                entries = try StoreState.decode(bytes)
            } catch {
                self?.logger.warning("store \(request.store): fetching a store state from \(request.host) failed: \(error)")
            }
            guard let self else { return }
            self.perform(self.core.fetched(request, entries: entries, now: center.clock.now, stores: self))
        }
    }

    /// Takes what other programs of this machine wrote to the stores' files (`baton kv set`
    /// beside a running app) and sends it: the program that wrote it may have had no network.
    private func checkFiles(openingNew: Bool) {
        for (name, store) in stores.sorted(by: { $0.key < $1.key }) {
            let entries = store.reloadIfChanged().compactMap { store.entry(forKey: $0) }
            perform(core.wrote(entries, of: name, now: center.clock.now, stores: self))
        }
        if openingNew, let folder {
            for name in StoreFile.names(in: folder) where stores[name] == nil { _ = try? store(named: name) }
        }
    }

    /// Keeps one timer, for the core's next deadline.
    private func reschedule() {
        guard let next = core.nextDeadline else { return }
        timer.schedule(next)
    }
}

/// The core reads the stores held.
extension StoreSync: @MainActor StoreSyncStores {
    package func digests(of store: String) -> StoreDigests? { stores[store]?.digests }

    package func entries(of store: String, inBuckets buckets: Set<Int>) -> [StoreEntry] {
        stores[store]?.entries(inBuckets: buckets) ?? []
    }
}
