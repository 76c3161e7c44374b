import BatonFiles
import FoundationEssentials
import Handoff
import HandoffWire
import PropertyList

/// A named store of keys and property-list values that stays the same on every device of the
/// group: the contract of `NSUbiquitousKeyValueStore`, without an account (docs/PROTOCOL.md,
/// section 18).
///
/// The facade over three parts: the entries as a value (`StoreContents`: limits, versions,
/// which write wins, digests), the file (`StoreFile`, merged with other programs' writes under
/// its lock), and the listeners of `changes()`. Reads come from memory. A write checks the
/// limits, takes a new version, is on disk before `set` returns (or, with `writesThrough` off,
/// before `synchronize()` returns), and goes to peers through the `StoreSync` the store is
/// attached to. Writes that come from peers are reported by `changes()`, with their reason.
@MainActor
public final class KeyValueStore {
    /// How long a tombstone is kept: 30 days.
    public static let tombstoneLifetime: TimeInterval = StoreContents.tombstoneLifetime

    public let name: String
    /// This program's sender id: the writer of this store's own writes (its device's tag and
    /// the program's instance).
    public let writer: SenderID
    public var limits: KeyValueStoreLimits { contents.limits }
    /// Where the store lives on disk; nil: in memory only.
    public let file: StoreFile?
    /// What happens to the loser of two writes that conflict.
    /// Set here, it is written to the store's file at once, and the other programs of this
    /// machine holding the store take it from there.
    public var policy: ConflictPolicy {
        get { currentPolicy }
        set {
            guard newValue != currentPolicy else { return }
            currentPolicy = newValue
            policyChanged = true
            try? save()
        }
    }
    private var currentPolicy: ConflictPolicy
    /// This program changed the policy since it last wrote the file: the file's is older.
    private var policyChanged = false
    /// Whether each write is on disk before it returns; off, writes wait for `synchronize()`.
    public var writesThrough = true
    /// Under `resolve`: the program's answer to a conflict (none: keep both's result stays, and
    /// `changes()` says `unresolved`), and how long it may take.
    public var resolver: KeyValueResolver?
    public var resolverTimeout: TimeInterval = 10
    /// Conflicts handed to the resolver and not answered yet, by number.
    var pendingResolutions: [Int: StoreContents.Resolution] = [:]
    var resolutionCount = 0
    /// Told a sentence for the log when a conflict is resolved or not.
    package var onNote: ((String) -> Void)?
    /// When the store last exchanged digests or entries with a peer.
    public private(set) var lastSync: Date?

    /// The entries, their usage and digests.
    package private(set) var contents: StoreContents
    /// Where versions and `lastSync` get their time (the wall clock's date).
    let clock: any HandoffClock
    private var isDirty = false
    /// The file as this program last wrote or read it.
    private var writtenStamp: DiskStamp?
    private var subscribers: [UUID: AsyncStream<KeyValueStoreChange>.Continuation] = [:]

    /// Whether an entry's STORE datagram fits the datagram limit, and how large it is; set by the
    /// `StoreSync` the store is attached to. Nil: any size.
    package var measure: ((StoreEntry) -> (bytes: Int, limit: Int)?)?
    /// Called with the entries this store wrote (its own, and keep-local or keep-both writes
    /// made when taking a peer's), to send them.
    package var onWrites: (([StoreEntry]) -> Void)?

    /// A store named `name` (1–64 UTF-8 bytes, no `/`, not starting with `.`) written as `writer`,
    /// read from `file` when one is given and exists; its versions take their time from `clock`.
    ///
    /// Throws `StoreFile.ReadProblem` when the file is there but cannot be used.
    public init(
        name: String, writer: SenderID, file: StoreFile?, policy: ConflictPolicy? = nil,
        limits: KeyValueStoreLimits = KeyValueStoreLimits(), clock: any HandoffClock = SystemClock()
    ) throws(StoreFile.ReadProblem) {
        precondition(StoreMessage.isValidName(name), "not a store name: \(name)")
        self.name = name
        self.writer = writer
        self.file = file
        self.clock = clock
        let read = try file?.read()
        currentPolicy = policy ?? read?.policy ?? .newest
        contents = StoreContents(limits: limits)
        if let read {
            contents = StoreContents(limits: limits, clock: read.clock, entries: read.entries, ancestors: read.ancestors)
            lastSync = read.lastSync
            contents.dropOldTombstones(now: clock.date)
        }
        writtenStamp = file?.stamp()
    }

    // MARK: Reading

    /// The value of `key`, or nil.
    public func object(forKey key: String) -> PropertyListValue? { contents[key]?.value }
    public func string(forKey key: String) -> String? { object(forKey: key)?.stringValue }
    public func data(forKey key: String) -> Data? { object(forKey: key)?.dataValue }
    public func array(forKey key: String) -> [PropertyListValue]? { object(forKey: key)?.arrayValue }
    public func dictionary(forKey key: String) -> [String: PropertyListValue]? { object(forKey: key)?.dictionaryValue }
    /// The boolean of `key`; false when absent or of another type.
    public func bool(forKey key: String) -> Bool { object(forKey: key)?.boolValue ?? false }
    /// The integer of `key`; 0 when absent or of another type.
    public func longLong(forKey key: String) -> Int64 { object(forKey: key)?.intValue.map(Int64.init) ?? 0 }
    /// The real (or integer) of `key`; 0 when absent or of another type.
    public func double(forKey key: String) -> Double {
        switch object(forKey: key) {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: 0
        }
    }

    /// Every key with a value.
    public var dictionaryRepresentation: [String: PropertyListValue] { contents.values }

    /// The entry of `key`, tombstone or not: its version says who wrote it and when.
    public func entry(forKey key: String) -> StoreEntry? { contents[key] }

    /// Keys with a value, and the bytes they count against the limit.
    public var usage: (keys: Int, bytes: Int) { contents.usage }

    /// Not synced with any peer for longer than a tombstone is kept: a key removed meanwhile
    /// may come back from here (docs/PROTOCOL.md, section 18, "Tombstones").
    public var isStale: Bool {
        guard let lastSync else { return false }
        return clock.date.timeIntervalSince(lastSync) > Self.tombstoneLifetime
    }

    /// The store's 16 bucket digests.
    public var digests: StoreDigests { contents.digests }

    /// Every entry (tombstones included) in the given buckets, in order of SHA-256(key).
    package func entries(inBuckets buckets: Set<Int>) -> [StoreEntry] { contents.entries(inBuckets: buckets) }

    // MARK: Writing

    /// Sets `key` to `value` (nil removes it): `setAll` of one key.
    public func set(_ value: PropertyListValue?, forKey key: String) throws(KeyValueStoreError) {
        try setAll([key: value])
    }

    /// Removes `key`: a tombstone goes to peers. Nothing happens when the key has no value.
    public func removeObject(forKey key: String) throws(KeyValueStoreError) {
        try setAll([key: nil])
    }

    /// Sets every key of `values` (nil removes the key) as one write: checked as a whole against
    /// the limits, on disk once, sent to peers together. Throws, changing nothing, when a key or a
    /// limit would break (or, writing through, when the file cannot be written).
    public func setAll(_ values: [String: PropertyListValue?]) throws(KeyValueStoreError) {
        let before = contents
        let made = try contents.write(values, writer: writer, now: clock.date, measure: measure)
        guard !made.isEmpty else { return }
        if writesThrough {
            do {
                try save()
            } catch {
                contents = before
                throw error
            }
        } else {
            isDirty = true
        }
        onWrites?(made)
    }

    /// Writes what `set` and `removeObject` left in memory (with `writesThrough` off) to disk.
    public func synchronize() throws(KeyValueStoreError) {
        if isDirty { try save() }
    }

    // MARK: Peers

    package typealias Taken = StoreContents.Taken

    /// Takes a peer's entries (docs/PROTOCOL.md section 18, "Taking an entry"): merges them into
    /// the contents, then, when anything changed, writes the file and sends this store's own
    /// answers (keep local, keep both), then tells the listeners (`initial`: as `initialSync`,
    /// else `peerChange`), then hands conflicts under `resolve` to the resolver.
    @discardableResult
    package func take(_ incoming: [StoreEntry], initial: Bool) -> Taken {
        let now = clock.date
        let taken = contents.take(incoming, writer: writer, policy: currentPolicy, now: now)
        if taken.changedAnything {
            lastSync = now
            try? save()
            onWrites?(taken.writes)
        }
        for change in taken.changes(initial: initial) { emit(change) }
        for resolution in taken.resolutions { resolve(resolution) }
        return taken
    }

    /// Notes that digests were exchanged with a peer now (kept on disk at the next write).
    package func synced() {
        lastSync = clock.date
    }

    // MARK: Changes

    /// The changes peers make, from now on, until the store goes away.
    public func changes() -> AsyncStream<KeyValueStoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: KeyValueStoreChange.self, bufferingPolicy: .bufferingNewest(1_024))
        let id = UUID()
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.subscribers[id] = nil }
        }
        return stream
    }

    func emit(_ change: KeyValueStoreChange) {
        for continuation in subscribers.values { continuation.yield(change) }
    }

    // MARK: The file

    /// Writes the store, after taking what another program of this machine wrote to the file
    /// since this one read it (under the store's lock, so neither write is lost).
    private func save() throws(KeyValueStoreError) {
        contents.dropOldTombstones(now: clock.date)
        guard let file else {
            isDirty = false
            return
        }
        let merged: [String] = try file.withLock { () throws(KeyValueStoreError) -> [String] in
            let merged = file.stamp() == writtenStamp ? [] : mergeFile()
            var written = StoreFile.Contents(policy: currentPolicy, clock: contents.greatestClock, lastSync: lastSync, entries: contents.sortedEntries)
            written.ancestors = contents.ancestors.all
            try file.write(written)
            policyChanged = false
            writtenStamp = file.stamp()
            return merged
        }
        isDirty = false
        if !merged.isEmpty { emit(KeyValueStoreChange(reason: .peerChange, keys: merged)) }
    }

    /// Takes what another program of this machine wrote to the store's file, when the file
    /// changed since this program wrote or read it; reports the keys as `peerChange`. Returns them.
    @discardableResult
    public func reloadIfChanged() -> [String] {
        guard let file, file.stamp() != writtenStamp else { return [] }
        let merged = (try? file.withLock { () throws(KeyValueStoreError) -> [String] in
            let merged = mergeFile()
            writtenStamp = file.stamp()
            return merged
        }) ?? []
        if !merged.isEmpty { emit(KeyValueStoreChange(reason: .peerChange, keys: merged)) }
        return merged
    }

    /// Holds every entry of the file newer than this program's, and the file's policy unless
    /// this program changed its own since; the keys it changed.
    private func mergeFile() -> [String] {
        guard let file, let read = try? file.read() else { return [] }
        if !policyChanged { currentPolicy = read.policy }
        return contents.holdNewer(read.entries, clock: read.clock)
    }
}
