import FoundationEssentials
import HandoffWire
import PropertyList

/// One store's entries as a value: what it holds, what it counts against its limits, its
/// digests, and the writes made to it (docs/PROTOCOL.md, section 18). No file, clock or
/// listener: the time is an argument of what needs it, and `KeyValueStore` is the facade that
/// keeps one of these on disk and tells its listeners.
///
/// Merging a peer's entries (which version wins, the conflict policies) is in
/// `StoreContents+Merging.swift`.
package struct StoreContents: Sendable {
    /// How long a tombstone is kept: 30 days.
    package static let tombstoneLifetime: TimeInterval = 30 * 86_400
    /// Old tombstones are looked for at most this often, so that a run of writes does not pass
    /// over the whole store each time.
    static let sweepInterval: TimeInterval = 60

    package let limits: KeyValueStoreLimits
    /// One entry per key, tombstones included.
    package private(set) var entries: [String: StoreEntry] = [:]
    /// The greatest clock made or taken.
    package private(set) var greatestClock: UInt64 = 0
    /// What each key with a value counts against the limit (its value encoded once, when held).
    private var sizes: [String: Int] = [:]
    private var usedBytes = 0
    private var liveKeys = 0
    /// The bucket digests as last hashed, the buckets changed since, and the 128 bytes.
    private var bucketDigests: [[UInt8]]?
    private var changedBuckets: Set<Int> = []
    private var cachedDigests: StoreDigests?
    /// When old tombstones were last looked for.
    private var lastSweep: Date?
    /// Losers of conflicts already reported (see `firstReport(of:)`).
    var reportedLosers: Set<ReportedLoser> = []
    /// The values writes replaced, for a resolver's ancestor (`StoreAncestors`).
    package private(set) var ancestors = StoreAncestors()

    /// An empty store.
    package init(limits: KeyValueStoreLimits = KeyValueStoreLimits()) {
        self.limits = limits
    }

    /// A store holding, for each key, the greatest version of `entries`, with the greatest clock
    /// made or taken at least `clock`, and the values replaced `ancestors` (as far as room allows).
    package init(
        limits: KeyValueStoreLimits = KeyValueStoreLimits(), clock: UInt64, entries held: [StoreEntry],
        ancestors kept: [StoreAncestors.Ancestor] = []
    ) {
        self.limits = limits
        greatestClock = clock
        for entry in held where entries[entry.key].map({ $0.version < entry.version }) ?? true {
            entries[entry.key] = entry
            greatestClock = max(greatestClock, entry.version.clock)
        }
        sizes = entries.compactMapValues { $0.value == nil ? nil : $0.size }
        usedBytes = sizes.values.reduce(0, +)
        liveKeys = sizes.count
        for ancestor in kept { ancestors.keep(ancestor) }
        ancestors.trim(replacedBefore: 0, room: limits.totalBytes - usedBytes)
    }

    // MARK: Reading

    package subscript(key: String) -> StoreEntry? { entries[key] }

    /// Keys with a value, and the bytes they count against the limit.
    package var usage: (keys: Int, bytes: Int) { (liveKeys, usedBytes) }

    /// Every key with a value.
    package var values: [String: PropertyListValue] { entries.compactMapValues(\.value) }

    /// Every entry, in the order of their keys' UTF-8 bytes: as the file keeps them.
    package var sortedEntries: [StoreEntry] {
        entries.values.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// Every entry (tombstones included) in the given buckets, in order of SHA-256(key).
    package func entries(inBuckets buckets: Set<Int>) -> [StoreEntry] {
        entries.values
            .map { (hash: StoreDigests.keyHash($0.key), entry: $0) }
            .filter { buckets.contains(Int($0.hash[0] >> 4)) }
            .sorted { $0.hash.lexicographicallyPrecedes($1.hash) }
            .map(\.entry)
    }

    /// The 16 bucket digests; a bucket is hashed again only after an entry of it changed.
    package var digests: StoreDigests {
        mutating get {
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
    }

    // MARK: Writing

    /// Makes and holds one write by `writer` at `now`: every key of `values` (nil removes the
    /// key), checked as a whole against the limits, versions in key order, each after every clock
    /// made or taken. `measure` says how large an entry's datagram would be and its limit (nil:
    /// any size). Returns the entries made (none when nothing changes); throws, changing nothing,
    /// when a key or a limit would break.
    package mutating func write(
        _ values: [String: PropertyListValue?], writer: SenderID, now: Date,
        measure: ((StoreEntry) -> (bytes: Int, limit: Int)?)? = nil
    ) throws(KeyValueStoreError) -> [StoreEntry] {
        var keys = liveKeys
        var bytes = usedBytes
        var made: [(entry: StoreEntry, size: Int)] = []
        for key in values.keys.sorted() {
            let value = values[key]!
            let held = entries[key]
            // Removing what has no value is nothing (and says nothing about the key).
            if value == nil, held?.value == nil { continue }
            let keyBytes = key.utf8.count
            guard keyBytes >= 1, keyBytes <= limits.keyBytes else { throw .invalidKey(bytes: keyBytes, limit: limits.keyBytes) }
            let entry = StoreEntry(key: key, value: value, version: StoreVersion(clock: 0, writer: writer), replaces: held?.version)
            let size = entry.size
            keys += (value != nil ? 1 : 0) - (held?.value != nil ? 1 : 0)
            bytes += size - heldSize(key)
            made.append((entry, size))
        }
        guard keys <= limits.keys else { throw .tooManyKeys(limit: limits.keys) }
        guard bytes <= limits.totalBytes else { throw .storeFull(bytes: bytes, limit: limits.totalBytes) }
        // The version's bytes do not change the size: measured before they are stamped.
        for (entry, _) in made where entry.value != nil {
            if let measured = measure?(entry), measured.bytes > measured.limit {
                throw .entryTooLarge(bytes: measured.bytes, limit: measured.limit)
            }
        }
        var clock = greatestClock
        return made.map { entry, size in
            clock = StoreVersion.nextClock(after: clock, now: now)
            let stamped = StoreEntry(
                key: entry.key, value: entry.value, version: StoreVersion(clock: clock, writer: writer), replaces: entry.replaces)
            hold(stamped, size: size)
            return stamped
        }
    }

    /// A new entry of `writer` for `key` at `now`, after every clock made or taken (not held).
    func makeEntry(key: String, value: PropertyListValue?, writer: SenderID, now: Date, replacing: StoreVersion? = nil, kept: Bool = false)
        -> StoreEntry
    {
        let clock = StoreVersion.nextClock(after: greatestClock, now: now)
        return StoreEntry(
            key: key, value: value, version: StoreVersion(clock: clock, writer: writer),
            replaces: replacing ?? entries[key]?.version, kept: kept)
    }

    // MARK: Keeping

    /// Holds `entry`, whose size is `size` when the caller has it (`entry.size` encodes the value).
    mutating func hold(_ entry: StoreEntry, size known: Int? = nil) {
        changedBuckets.insert(StoreDigests.bucket(of: entry.key))
        cachedDigests = nil
        if let replaced = entries[entry.key], replaced.version < entry.version {
            ancestors.keep(replaced, size: heldSize(entry.key), by: entry.version)
        }
        if entries[entry.key]?.value != nil { liveKeys -= 1 }
        usedBytes -= heldSize(entry.key)
        let size = known ?? entry.size
        sizes[entry.key] = size == 0 ? nil : size
        entries[entry.key] = entry
        usedBytes += size
        if entry.value != nil { liveKeys += 1 }
        greatestClock = max(greatestClock, entry.version.clock)
        // Values replaced live in the room the values leave.
        if ancestors.bytes > limits.totalBytes - usedBytes { ancestors.trim(replacedBefore: 0, room: limits.totalBytes - usedBytes) }
    }

    /// What the entry held for `key` counts against the limit; 0 for none or a tombstone.
    func heldSize(_ key: String) -> Int { sizes[key] ?? 0 }

    /// Holds every entry of `others` newer than the one held for its key (the store's file, as
    /// another program of this machine wrote it), and moves the clock past `clock`; the keys it
    /// changed.
    package mutating func holdNewer(_ others: [StoreEntry], clock: UInt64) -> [String] {
        greatestClock = max(greatestClock, clock)
        var changed: [String] = []
        for entry in others where entries[entry.key].map({ $0.version < entry.version }) ?? true {
            hold(entry)
            changed.append(entry.key)
        }
        return changed
    }

    /// Forgets tombstones, and values replaced (`ancestors`), more than 30 days old at `now`:
    /// looked for at most once a minute (and again at once when the clock went back).
    package mutating func dropOldTombstones(now: Date) {
        if let swept = lastSweep, now.timeIntervalSince(swept) < Self.sweepInterval, now >= swept { return }
        lastSweep = now
        let oldest = now.addingTimeInterval(-Self.tombstoneLifetime)
        ancestors.trim(replacedBefore: StoreVersion.clock(at: oldest), room: limits.totalBytes - usedBytes)
        let kept = entries.filter { !$0.value.isTombstone || $0.value.version.date >= oldest }
        guard kept.count != entries.count else { return }
        entries = kept
        bucketDigests = nil
        cachedDigests = nil
    }
}
