import Foundation
import HandoffWire
import PropertyList

/// A named store of keys and property-list values that stays the same on every device of the
/// group: the contract of `NSUbiquitousKeyValueStore`, without an account (docs/PROTOCOL.md,
/// section 18).
///
/// Reads come from memory. A write checks the limits, takes a new version, is on disk before
/// `set` returns (or, with `writesThrough` off, before `synchronize()` returns), and goes to peers
/// through the `StoreSync` the store is attached to. Writes that come from peers are reported by
/// `changes()`, with their reason.
@MainActor
public final class KeyValueStore {
    /// How long a tombstone is kept: 30 days.
    public static let tombstoneLifetime: TimeInterval = 30 * 86_400

    public let name: String
    /// This program's sender id: the writer of this store's own writes (its device's tag and
    /// the program's instance).
    public let writer: SenderID
    public let limits: KeyValueStoreLimits
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
            try? persist()
        }
    }
    private var currentPolicy: ConflictPolicy
    /// This program changed the policy since it last wrote the file: the file's is older.
    private var policyChanged = false
    /// Whether each write is on disk before it returns; off, writes wait for `synchronize()`.
    public var writesThrough = true
    /// When the store last exchanged digests or entries with a peer.
    public private(set) var lastSync: Date?

    private(set) var entries: [String: StoreEntry] = [:]
    /// The greatest clock made or taken.
    private(set) var greatestClock: UInt64 = 0
    private var usedBytes = 0
    /// What each key with a value counts against the limit (its value encoded once, when held).
    private var sizes: [String: Int] = [:]
    private var liveKeys = 0
    private var isDirty = false
    private let now: @Sendable () -> Date
    private var subscribers: [UUID: AsyncStream<KeyValueStoreChange>.Continuation] = [:]

    /// Whether an entry's STORE datagram fits the datagram limit, and how large it is; set by the
    /// `StoreSync` the store is attached to. Nil: any size.
    package var measure: ((StoreEntry) -> (bytes: Int, limit: Int)?)?
    /// Called with the entries this store wrote (its own, and keep-local or keep-both writes
    /// made when taking a peer's), to send them.
    package var onWrites: (([StoreEntry]) -> Void)?

    /// A store named `name` (1–64 UTF-8 bytes, no `/`, not starting with `.`) written as `writer`,
    /// read from `file` when one is given and exists.
    ///
    /// Throws `StoreFile.ReadProblem` when the file is there but cannot be used.
    public init(
        name: String, writer: SenderID, file: StoreFile?, policy: ConflictPolicy? = nil,
        limits: KeyValueStoreLimits = KeyValueStoreLimits(), now: @escaping @Sendable () -> Date = Date.init
    ) throws(StoreFile.ReadProblem) {
        precondition(StoreMessage.isValidName(name), "not a store name: \(name)")
        self.name = name
        self.writer = writer
        self.file = file
        self.limits = limits
        self.now = now
        let contents = try file?.read()
        currentPolicy = policy ?? contents?.policy ?? .newest
        if let contents {
            greatestClock = contents.clock
            lastSync = contents.lastSync
            for entry in contents.entries where entries[entry.key].map({ $0.version < entry.version }) ?? true {
                entries[entry.key] = entry
                greatestClock = max(greatestClock, entry.version.clock)
            }
            dropOldTombstones(now: now())
            recount()
        }
        writtenStamp = file?.stamp()
    }

    // MARK: Reading

    /// The value of `key`, or nil.
    public func object(forKey key: String) -> PropertyListValue? { entries[key]?.value }
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
    public var dictionaryRepresentation: [String: PropertyListValue] {
        entries.compactMapValues(\.value)
    }

    /// The entry of `key`, tombstone or not: its version says who wrote it and when.
    public func entry(forKey key: String) -> StoreEntry? { entries[key] }

    /// Keys with a value, and the bytes they count against the limit.
    public var usage: (keys: Int, bytes: Int) { (liveKeys, usedBytes) }

    /// Not synced with any peer for longer than a tombstone is kept: a key removed meanwhile
    /// may come back from here (docs/PROTOCOL.md, section 18, "Tombstones").
    public var isStale: Bool {
        guard let lastSync else { return false }
        return now().timeIntervalSince(lastSync) > Self.tombstoneLifetime
    }

    // MARK: Writing

    /// Sets `key` to `value` (nil removes it). Throws, changing nothing, when a limit would break.
    public func set(_ value: PropertyListValue?, forKey key: String) throws(KeyValueStoreError) {
        guard let value else { return try removeObject(forKey: key) }
        let keyBytes = key.utf8.count
        guard keyBytes >= 1, keyBytes <= limits.keyBytes else { throw .invalidKey(bytes: keyBytes, limit: limits.keyBytes) }
        let entry = makeEntry(key: key, value: value)
        if entries[key]?.value == nil, liveKeys >= limits.keys { throw .tooManyKeys(limit: limits.keys) }
        let size = entry.size
        let bytes = usedBytes - heldSize(key) + size
        guard bytes <= limits.totalBytes else { throw .storeFull(bytes: bytes, limit: limits.totalBytes) }
        if let measured = measure?(entry), measured.bytes > measured.limit {
            throw .entryTooLarge(bytes: measured.bytes, limit: measured.limit)
        }
        try write([entry], sizes: [size])
    }

    /// Sets every key of `values` (nil removes the key) as one write: checked as a whole against
    /// the limits, on disk once, sent to peers together. Throws, changing nothing, when a key or a
    /// limit would break.
    public func setAll(_ values: [String: PropertyListValue?]) throws(KeyValueStoreError) {
        var keys = liveKeys
        var bytes = usedBytes
        var made: [StoreEntry] = []
        var madeSizes: [Int] = []
        for key in values.keys.sorted() {
            let value = values[key]!
            let keyBytes = key.utf8.count
            guard keyBytes >= 1, keyBytes <= limits.keyBytes else { throw .invalidKey(bytes: keyBytes, limit: limits.keyBytes) }
            let held = entries[key]
            if value == nil, held?.value == nil { continue }
            let entry = StoreEntry(
                key: key, value: value, version: StoreVersion(clock: 0, writer: writer), replaces: held?.version)
            if let measured = measure?(entry), value != nil, measured.bytes > measured.limit {
                throw .entryTooLarge(bytes: measured.bytes, limit: measured.limit)
            }
            let size = entry.size
            keys += (value != nil ? 1 : 0) - (held?.value != nil ? 1 : 0)
            bytes += size - heldSize(key)
            made.append(entry)
            madeSizes.append(size)
        }
        guard keys <= limits.keys else { throw .tooManyKeys(limit: limits.keys) }
        guard bytes <= limits.totalBytes else { throw .storeFull(bytes: bytes, limit: limits.totalBytes) }
        guard !made.isEmpty else { return }
        // Versions in key order, each after the one before.
        var clock = greatestClock
        let stamped = made.map { entry in
            clock = StoreVersion.nextClock(after: clock, now: now())
            return StoreEntry(key: entry.key, value: entry.value, version: StoreVersion(clock: clock, writer: writer), replaces: entry.replaces)
        }
        try write(stamped, sizes: madeSizes)
    }

    /// Removes `key`: a tombstone goes to peers. Nothing happens when the key has no value.
    public func removeObject(forKey key: String) throws(KeyValueStoreError) {
        guard entries[key]?.value != nil else { return }
        try write([makeEntry(key: key, value: nil)], sizes: [0])
    }

    /// Writes what `set` and `removeObject` left in memory (with `writesThrough` off) to disk.
    public func synchronize() throws(KeyValueStoreError) {
        if isDirty { try persist() }
    }

    /// A new entry of this device for `key`, after every clock made or taken.
    private func makeEntry(key: String, value: PropertyListValue?, replacing: StoreVersion? = nil, kept: Bool = false)
        -> StoreEntry
    {
        let clock = StoreVersion.nextClock(after: greatestClock, now: now())
        return StoreEntry(
            key: key, value: value, version: StoreVersion(clock: clock, writer: writer),
            replaces: replacing ?? entries[key]?.version, kept: kept)
    }

    /// Keeps `made` (this device's own writes, whose sizes are `sizes`), on disk as the store
    /// says, and sends them.
    private func write(_ made: [StoreEntry], sizes madeSizes: [Int]) throws(KeyValueStoreError) {
        let before = (entries, greatestClock, usedBytes, liveKeys, sizes)
        for (entry, size) in zip(made, madeSizes) { hold(entry, size: size) }
        if writesThrough {
            do {
                try persist()
            } catch {
                (entries, greatestClock, usedBytes, liveKeys, sizes) = before
                bucketDigests = nil
                cachedDigests = nil
                throw error
            }
        } else {
            isDirty = true
        }
        onWrites?(made)
    }

    // MARK: Peers

    /// The store's 16 bucket digests; a bucket is hashed again only after an entry of it changed.
    public var digests: StoreDigests {
        if let cached = cachedDigests { return cached }
        var buckets = bucketDigests ?? [[UInt8]](repeating: [], count: StoreDigests.bucketCount)
        if bucketDigests == nil { changedBuckets = Set(0..<StoreDigests.bucketCount) }
        if !changedBuckets.isEmpty {
            var members = [Int: [(key: String, version: StoreVersion)]]()
            for entry in entries.values {
                let bucket = StoreDigests.bucket(of: entry.key)
                if changedBuckets.contains(bucket) { members[bucket, default: []].append((entry.key, entry.version)) }
            }
            for bucket in changedBuckets {
                buckets[bucket] = Array(StoreDigests(entries: members[bucket] ?? []).bucket(bucket))
            }
        }
        changedBuckets.removeAll()
        bucketDigests = buckets
        let digests = StoreDigests(bytes: buckets.flatMap { $0 })!
        cachedDigests = digests
        return digests
    }
    private var bucketDigests: [[UInt8]]?
    private var changedBuckets: Set<Int> = []
    private var cachedDigests: StoreDigests?

    /// Every entry (tombstones included) in the given buckets, in order of SHA-256(key).
    package func entries(inBuckets buckets: Set<Int>) -> [StoreEntry] {
        entries.values
            .map { (hash: StoreDigests.keyHash($0.key), entry: $0) }
            .filter { buckets.contains(Int($0.hash[0] >> 4)) }
            .sorted { $0.hash.lexicographicallyPrecedes($1.hash) }
            .map(\.entry)
    }

    /// What taking a peer's entries came to.
    package struct Taken: Equatable {
        /// Versions taken, in order.
        var took: [StoreVersion] = []
        /// Writes this store made in answer (keep local, keep both), to send.
        var writes: [StoreEntry] = []
        /// Entries not taken: a limit (quota), or too far in the future.
        var refused = 0
        var changed: [String] = []
        var conflicts: [String] = []
        var overQuota: [String] = []
    }

    /// Takes a peer's entries, as docs/PROTOCOL.md section 18 says ("Taking an entry", "Which
    /// version wins"), writes the store to disk when anything changed, and reports the changes
    /// (`initial`: as `initialSync`, else `peerChange`).
    @discardableResult
    package func take(_ incoming: [StoreEntry], initial: Bool) -> Taken {
        let now = now()
        let latestClock = StoreVersion.clock(at: now.addingTimeInterval(60))
        let oldest = now.addingTimeInterval(-Self.tombstoneLifetime)
        var result = Taken()
        for entry in incoming {
            guard entry.version.clock <= latestClock else {
                result.refused += 1
                continue
            }
            if entry.isTombstone, entry.version.date < oldest { continue }
            let held = entries[entry.key]
            if let held, held.version >= entry.version {
                if held.version != entry.version, Self.conflict(winner: held, loser: entry), firstReport(of: entry) {
                    result.conflicts.append(entry.key)
                }
                continue
            }
            let heldValueSize = heldSize(entry.key)
            let entrySize = entry.size
            if entry.value != nil {
                let bytes = usedBytes - heldValueSize + entrySize
                if bytes > limits.totalBytes || (held?.value == nil && liveKeys >= limits.keys) {
                    result.refused += 1
                    result.overQuota.append(entry.key)
                    continue
                }
            }
            hold(entry, size: entrySize)
            result.took.append(entry.version)
            result.changed.append(entry.key)
            guard let held, Self.conflict(winner: entry, loser: held) else { continue }
            if firstReport(of: held) { result.conflicts.append(entry.key) }
            guard let value = held.value else { continue }
            switch policy {
            case .newest:
                break
            case .keepLocal:
                guard held.version.writerTag == writer.tag, !entry.kept else { break }
                // The same key and value as the one held: the same size.
                let again = makeEntry(key: entry.key, value: value, replacing: entry.version, kept: true)
                let bytes = usedBytes - entrySize + heldValueSize
                guard bytes <= limits.totalBytes else { break }
                hold(again, size: heldValueSize)
                result.writes.append(again)
            case .keepBoth:
                let key = entry.key + ".conflict." + held.version.writer.prefix(4).map { String(format: "%02x", $0) }.joined()
                guard StoreEntry.isValidKey(key), entries[key]?.value == nil, liveKeys < limits.keys else { break }
                let copy = makeEntry(key: key, value: value)
                let copySize = copy.size
                guard usedBytes + copySize <= limits.totalBytes else { break }
                hold(copy, size: copySize)
                result.writes.append(copy)
                result.changed.append(key)
            }
        }
        if !result.took.isEmpty || !result.writes.isEmpty {
            lastSync = now
            try? persist()
            onWrites?(result.writes)
        }
        if !result.changed.isEmpty {
            emit(KeyValueStoreChange(reason: initial ? .initialSync : .peerChange, keys: Array(Set(result.changed))))
        }
        if !result.conflicts.isEmpty { emit(KeyValueStoreChange(reason: .conflict, keys: Array(Set(result.conflicts)))) }
        if !result.overQuota.isEmpty { emit(KeyValueStoreChange(reason: .quotaViolation, keys: Array(Set(result.overQuota)))) }
        return result
    }

    /// Whether the conflict `loser` lost is reported for the first time: a loser that comes again
    /// (in another peer's answer) is reported once. The last 1,024 are remembered.
    private func firstReport(of loser: StoreEntry) -> Bool {
        let mark = ReportedLoser(key: loser.key, version: loser.version)
        guard !reportedLosers.contains(mark) else { return false }
        if reportedLosers.count >= 1_024 { reportedLosers.removeAll() }
        reportedLosers.insert(mark)
        return true
    }

    private struct ReportedLoser: Hashable {
        let key: String
        let version: StoreVersion
    }
    private var reportedLosers: Set<ReportedLoser> = []

    /// Whether the winner's writer had not seen the loser: it replaced nothing, or a version
    /// older than the loser.
    static func conflict(winner: StoreEntry, loser: StoreEntry) -> Bool {
        guard let replaced = winner.replaces else { return true }
        return replaced < loser.version
    }

    /// Notes that digests were exchanged with a peer now (kept on disk at the next write).
    package func synced() {
        lastSync = now()
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

    private func emit(_ change: KeyValueStoreChange) {
        for continuation in subscribers.values { continuation.yield(change) }
    }

    // MARK: Keeping

    /// Holds `entry`, whose size is `size` when the caller has it (`entry.size` encodes the value).
    private func hold(_ entry: StoreEntry, size known: Int? = nil) {
        changedBuckets.insert(StoreDigests.bucket(of: entry.key))
        cachedDigests = nil
        if entries[entry.key]?.value != nil { liveKeys -= 1 }
        usedBytes -= heldSize(entry.key)
        let size = known ?? entry.size
        sizes[entry.key] = size == 0 ? nil : size
        entries[entry.key] = entry
        usedBytes += size
        if entry.value != nil { liveKeys += 1 }
        greatestClock = max(greatestClock, entry.version.clock)
    }

    /// What the entry held for `key` counts against the limit; 0 for none or a tombstone.
    private func heldSize(_ key: String) -> Int { sizes[key] ?? 0 }

    private func recount() {
        sizes = entries.compactMapValues { $0.value == nil ? nil : $0.size }
        usedBytes = sizes.values.reduce(0, +)
        liveKeys = sizes.count
    }

    /// Forgets tombstones older than their lifetime: looked for at most once a minute, so that a
    /// run of writes does not pass over the whole store each time.
    private func dropOldTombstones(now: Date) {
        if let swept = lastSweep, now.timeIntervalSince(swept) < 60, now >= swept { return }
        lastSweep = now
        let oldest = now.addingTimeInterval(-Self.tombstoneLifetime)
        let kept = entries.filter { !$0.value.isTombstone || $0.value.version.date >= oldest }
        guard kept.count != entries.count else { return }
        entries = kept
        bucketDigests = nil
        cachedDigests = nil
    }

    /// Writes the store, after taking what another program of this machine wrote to the file
    /// since this one read it (under the store's lock, so neither write is lost).
    private func persist() throws(KeyValueStoreError) {
        dropOldTombstones(now: now())
        guard let file else {
            isDirty = false
            return
        }
        let merged: [String] = try file.withLock { () throws(KeyValueStoreError) -> [String] in
            let merged = file.stamp() == writtenStamp ? [] : mergeFile()
            let sorted = entries.values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            try file.write(StoreFile.Contents(policy: currentPolicy, clock: greatestClock, lastSync: lastSync, entries: sorted))
            policyChanged = false
            writtenStamp = file.stamp()
            return merged
        }
        isDirty = false
        if !merged.isEmpty { emit(KeyValueStoreChange(reason: .peerChange, keys: merged)) }
    }

    /// The file as this program last wrote or read it.
    private var writtenStamp: StoreFile.Stamp?
    /// When old tombstones were last looked for.
    private var lastSweep: Date?

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

    /// Holds every entry of the file newer than this program's; the keys it changed.
    private func mergeFile() -> [String] {
        guard let file, let contents = try? file.read() else { return [] }
        greatestClock = max(greatestClock, contents.clock)
        if !policyChanged { currentPolicy = contents.policy }
        var changed: [String] = []
        for entry in contents.entries where entries[entry.key].map({ $0.version < entry.version }) ?? true {
            hold(entry)
            changed.append(entry.key)
        }
        return changed
    }
}
