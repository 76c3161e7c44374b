import FoundationEssentials
import Handoff
import HandoffWire

/// What the sync core reads of the stores it keeps in step. The runner reads its
/// `KeyValueStore`s; tests read `StoreContents` values.
package protocol StoreSyncStores {
    /// The names of the stores held.
    var storeNames: [String] { get }
    /// The digests of `store`; nil when it is not held.
    func digests(of store: String) -> StoreDigests?
    /// Every entry of `store` in `buckets`, in order of SHA-256(key).
    func entries(of store: String, inBuckets buckets: Set<Int>) -> [StoreEntry]
}

/// A seeded generator the core draws its jitter from.
package protocol SyncRandom: RandomNumberGenerator, Sendable {}

extension SyncRandom {
    /// A number from `range`.
    mutating func draw(in range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &self) }
}

extension SplitMix64: SyncRandom {}

/// The key-value stores' sync (docs/PROTOCOL.md, section 18, "When STORE datagrams are sent") as
/// a state machine, in `HandoffCore`'s shape: every input carries the time (a monotonic instant:
/// nothing here travels), every answer is a list of `StoreSyncAction`s for the runner to carry
/// out, and `nextDeadline` says when it wants `tick` next. It reads no clock, draws no number of
/// its own (its jitter comes from the generator it is given), and touches no file or socket:
/// a test drives minutes of protocol time in milliseconds. `StoreSync` is its runner.
///
/// Receiving and answering are in `StoreSyncCore+Receiving.swift`, packing what goes out in
/// `StoreSyncCore+Sending.swift`.
package struct StoreSyncCore: Sendable {
    package typealias Instant = ContinuousClock.Instant

    /// Stores held at most: an entry for another store is refused (the limit keeps a listed
    /// peer from filling the disk with stores).
    package static let storeLimit = 16
    /// How long an answer waits, at most, so that peers answering one STORE do not all send at once.
    static let answerDelay: Duration = .milliseconds(100)
    /// An answer per store at most this often (4 a second), whatever a peer sends.
    static let answerSpacing: Duration = .milliseconds(250)
    /// What went out (or came in) less than this long before a peer's digests were heard is
    /// taken as crossing them, not sent again in the answer.
    static let crossing: Duration = .milliseconds(250)
    /// How long sends and takes are remembered for that.
    static let inFlight: Duration = .seconds(1)
    /// Acknowledgements due within this long go out together, in one datagram.
    static let ackDelay: Duration = .milliseconds(10)
    /// Digests go out again after 27–33 s: about every 30 s, drawn anew each time so that the
    /// peers of a group do not keep sending together.
    static let digestsInterval: ClosedRange<Duration> = .seconds(27) ... .seconds(33)
    /// Versions one acknowledgement lists at most: 32 fit a datagram whatever it answers.
    static let tookLimit = 32
    /// Entries that would take more datagrams than this go as one store state.
    static let datagramsBeforeState = 4
    /// What counts as the first exchange after start (`initialSync`), at most.
    static let initialWindow: Duration = .seconds(60)
    /// How often the stores' files are checked for other programs' writes.
    static let fileCheckInterval: Duration = .seconds(1)

    /// What the runner's setup means for the rules.
    package struct Configuration: Sendable, Equatable {
        /// The datagram limit entries are packed to.
        package var maximumDatagramSize: Int
        /// Whether a state stream runs: entries too many or too large for datagrams go as a store
        /// state, and a write is never too large for a datagram.
        package var canShelve: Bool
        /// Whether the stores live on disk, where other programs of the machine write too.
        package var watchesFiles: Bool

        package init(maximumDatagramSize: Int, canShelve: Bool, watchesFiles: Bool) {
            self.maximumDatagramSize = maximumDatagramSize
            self.canShelve = canShelve
            self.watchesFiles = watchesFiles
        }
    }

    /// Names one wait of `wait(_:for:until:)`.
    package typealias WaitID = UInt64

    /// What a wait waits for.
    package enum Awaited: Hashable, Sendable {
        /// Another sender said it took this version.
        case took(StoreVersion)
        /// A peer's digests of this store matched this device's.
        case synced(String)
    }

    package let configuration: Configuration
    var random: any SyncRandom

    /// When `start` came; nil before.
    private(set) var startedAt: Instant?
    private(set) var isStopped = false
    /// Stores whose digests matched a peer's since start.
    package internal(set) var synced: Set<String> = []
    /// Devices a STORE was heard from, by store.
    package internal(set) var heardFrom: [String: Set<SenderID>] = [:]
    /// Versions a peer said it took, with the devices that took them.
    var acknowledged: [StoreVersion: Set<DeviceTag>] = [:]
    /// Answers due, per store: the buckets still to send, when, and when the newest digests
    /// that asked for them were heard.
    var answers: [String: PendingAnswer] = [:]
    var lastAnswer: [String: Instant] = [:]
    /// Acknowledgements due, per store: the versions and when they go.
    var pendingAcks: [String: (versions: [StoreVersion], due: Instant)] = [:]
    /// Entries sent or taken in the last second, and when.
    var recentlySent: [SentKey: Instant] = [:]
    /// Store states being fetched, by store and sender.
    var fetching: Set<FetchKey> = []
    var stateRevision = 0
    var digestsDue: Instant?
    var fileCheckDue: Instant?
    var waits: [WaitID: (awaited: Awaited, deadline: Instant)] = [:]

    /// STORE datagrams taken in, entries refused, and store states fetched or being fetched.
    package internal(set) var heardCount = 0
    package internal(set) var refusedCount = 0
    package internal(set) var fetches = 0

    struct PendingAnswer: Sendable {
        var buckets: Set<Int>
        var due: Instant
        var heard: Instant
    }

    struct SentKey: Hashable, Sendable {
        let store: String
        let version: StoreVersion
    }

    struct FetchKey: Hashable, Sendable {
        let store: String
        let sender: SenderID
    }

    /// A core with `configuration`, whose jitter comes from `random` (seeded, so a run repeats).
    package init(configuration: Configuration, random: some SyncRandom) {
        self.configuration = configuration
        self.random = random
    }

    /// When the core next wants `tick`: the earliest of the periodic digests, the file check,
    /// an answer, an acknowledgement and the end of a wait; nil when nothing is waiting.
    package var nextDeadline: Instant? {
        guard !isStopped else { return nil }
        var next: Instant?
        func consider(_ instant: Instant?) {
            if let instant, next.map({ instant < $0 }) ?? true { next = instant }
        }
        consider(digestsDue)
        consider(fileCheckDue)
        for answer in answers.values { consider(answer.due) }
        for ack in pendingAcks.values { consider(ack.due) }
        for wait in waits.values { consider(wait.deadline) }
        return next
    }

    // MARK: Life

    /// Sends every store's digests, and again every 27–33 s; checks the files every second when
    /// the stores are on disk.
    package mutating func start(now: Instant, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard startedAt == nil, !isStopped else { return [] }
        startedAt = now
        let actions = stores.storeNames.sorted().flatMap { sendDigests(of: $0, stores: stores) }
        digestsDue = now + jitter(in: Self.digestsInterval)
        if configuration.watchesFiles { fileCheckDue = now + Self.fileCheckInterval }
        return actions
    }

    /// A store was opened: once started, its digests go out.
    package func opened(_ store: String, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard startedAt != nil, !isStopped else { return [] }
        return sendDigests(of: store, stores: stores)
    }

    /// The store wrote `entries` (its own writes, answers it made when taking a peer's, or what
    /// another program of this machine put in its file): they go out at once.
    package mutating func wrote(_ entries: [StoreEntry], of store: String, now: Instant, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard !entries.isEmpty, !isStopped else { return [] }
        return send(entries, of: store, now: now, stores: stores)
    }

    /// Stops: every wait ends unanswered, nothing more is due.
    package mutating func stop() -> [StoreSyncAction] {
        isStopped = true
        let ended = waits.keys.sorted().map { StoreSyncAction.resume($0, false) }
        waits.removeAll()
        answers.removeAll()
        pendingAcks.removeAll()
        digestsDue = nil
        fileCheckDue = nil
        return ended
    }

    // MARK: Waiting for peers

    /// Whether `awaited` already happened.
    package func happened(_ awaited: Awaited) -> Bool {
        switch awaited {
        case .took(let version): acknowledged[version]?.isEmpty == false
        case .synced(let store): synced.contains(store)
        }
    }

    /// Waits (as `id`) until `awaited` happens, or `deadline`: `resume(id, _)` says which.
    package mutating func wait(_ id: WaitID, for awaited: Awaited, until deadline: Instant) -> [StoreSyncAction] {
        if happened(awaited) { return [.resume(id, true)] }
        guard !isStopped else { return [.resume(id, false)] }
        waits[id] = (awaited, deadline)
        return []
    }

    /// The waits for `awaited`, which just happened, end.
    mutating func ended(_ awaited: Awaited) -> [StoreSyncAction] {
        let done = waits.filter { $0.value.awaited == awaited }.keys.sorted()
        for id in done { waits[id] = nil }
        return done.map { .resume($0, true) }
    }

    // MARK: Time

    /// Does what is due at `now`: waits that ran out, acknowledgements, answers, the periodic
    /// digests and the file check.
    package mutating func tick(now: Instant, stores: some StoreSyncStores) -> [StoreSyncAction] {
        guard !isStopped else { return [] }
        var actions: [StoreSyncAction] = []
        for (id, wait) in waits.sorted(by: { $0.key < $1.key }) where wait.deadline <= now {
            waits[id] = nil
            actions.append(.resume(id, false))
        }
        for (name, ack) in pendingAcks.sorted(by: { $0.key < $1.key }) where ack.due <= now {
            pendingAcks[name] = nil
            guard let digests = stores.digests(of: name) else { continue }
            let took = Array(ack.versions.sorted(by: >).prefix(Self.tookLimit))
            actions.append(.send(StoreMessage(store: name, digests: digests, took: took)))
        }
        for (name, answer) in answers.sorted(by: { $0.key < $1.key }) where answer.due <= now {
            actions += self.answer(name, now: now, stores: stores)
        }
        if let due = digestsDue, due <= now {
            for name in stores.storeNames.sorted() { actions += sendDigests(of: name, stores: stores) }
            digestsDue = now + jitter(in: Self.digestsInterval)
        }
        if let due = fileCheckDue, due <= now {
            actions.append(.checkFiles(openNew: stores.storeNames.count < Self.storeLimit))
            fileCheckDue = now + Self.fileCheckInterval
        }
        return actions
    }

    /// A duration drawn from `range` with the core's generator.
    mutating func jitter(in range: ClosedRange<Duration>) -> Duration {
        let span = Int64((range.upperBound - range.lowerBound) / .nanoseconds(1))
        return range.lowerBound + .nanoseconds(random.draw(in: 0...span))
    }
}
