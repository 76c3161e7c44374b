import FoundationEssentials
import HandoffWire
import PropertyList

/// Taking a peer's entries: which version wins, what is refused, and the conflict policies
/// (docs/PROTOCOL.md, section 18, "Taking an entry", "Which version wins").
extension StoreContents {
    /// An entry whose clock is further than this past the receiver's is refused: the
    /// datagram's own bound on the sender's clock (section 7, step 14).
    static let futureLimit: TimeInterval = 60
    /// Conflict losers remembered, so that one that comes again is reported once.
    static let reportedLosersKept = 1_024

    /// What taking a peer's entries came to.
    package struct Taken: Equatable, Sendable {
        /// Versions taken, in order.
        package var took: [StoreVersion] = []
        /// Writes this store made in answer (keep local, keep both), to send.
        package var writes: [StoreEntry] = []
        /// Entries not taken: a limit (quota), or too far in the future.
        package var refused = 0
        package var changed: [String] = []
        package var conflicts: [String] = []
        package var overQuota: [String] = []
        /// Conflicts under `resolve` for the resolver, keep both's result already held.
        package var resolutions: [Resolution] = []

        package init() {}

        /// Whether the contents changed.
        package var changedAnything: Bool { !took.isEmpty || !writes.isEmpty }

        /// What listeners are told, in this order: the keys that changed (`initial`: as
        /// `initialSync`), the conflicts, the keys refused for a limit.
        package func changes(initial: Bool) -> [KeyValueStoreChange] {
            var said: [KeyValueStoreChange] = []
            if !changed.isEmpty { said.append(KeyValueStoreChange(reason: initial ? .initialSync : .peerChange, keys: Array(Set(changed)))) }
            if !conflicts.isEmpty { said.append(KeyValueStoreChange(reason: .conflict, keys: Array(Set(conflicts)))) }
            if !overQuota.isEmpty { said.append(KeyValueStoreChange(reason: .quotaViolation, keys: Array(Set(overQuota)))) }
            return said
        }
    }

    /// Takes a peer's entries, one at a time in order, at `now`, as `writer` (this program, whose
    /// writes a keep-local or keep-both answer makes) under `policy`.
    package mutating func take(_ incoming: [StoreEntry], writer: SenderID, policy: ConflictPolicy, now: Date) -> Taken {
        let latestClock = StoreVersion.clock(at: now.addingTimeInterval(Self.futureLimit))
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
                let bytes = usage.bytes - heldValueSize + entrySize
                if bytes > limits.totalBytes || (held?.value == nil && usage.keys >= limits.keys) {
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
            if policy == .resolve {
                // The device that wrote the loser resolves: one device asks, whoever held it.
                guard held.version.writerTag == writer.tag else { continue }
                let copy = held.value.flatMap { keepBoth(held, value: $0, writer: writer, now: now, into: &result) }
                result.resolutions.append(
                    Resolution(
                        key: entry.key, winner: entry, loser: held, ancestor: ancestors.value(of: entry.key, at: entry.replaces),
                        fallback: copy))
                continue
            }
            guard let value = held.value else { continue }
            switch policy {
            case .newest:
                break
            case .keepLocal:
                guard held.version.writerTag == writer.tag, !entry.kept else { break }
                // The same key and value as the one held: the same size.
                let again = makeEntry(key: entry.key, value: value, writer: writer, now: now, replacing: entry.version, kept: true)
                guard usage.bytes - entrySize + heldValueSize <= limits.totalBytes else { break }
                hold(again, size: heldValueSize)
                result.writes.append(again)
            case .keepBoth:
                keepBoth(held, value: value, writer: writer, now: now, into: &result)
            case .resolve:
                break
            }
        }
        return result
    }

    /// Keep both: writes the losing `value` of `loser` under `KEY.conflict.DEVICE` unless a value
    /// is there, the key would be too long, or a limit would break; the copy written.
    @discardableResult
    private mutating func keepBoth(_ loser: StoreEntry, value: PropertyListValue, writer: SenderID, now: Date, into result: inout Taken)
        -> StoreEntry?
    {
        let key = loser.key + ".conflict." + PlainText.hex(loser.version.writer.prefix(4))
        guard StoreEntry.isValidKey(key), entries[key]?.value == nil, usage.keys < limits.keys else { return nil }
        let copy = makeEntry(key: key, value: value, writer: writer, now: now)
        let copySize = copy.size
        guard usage.bytes + copySize <= limits.totalBytes else { return nil }
        hold(copy, size: copySize)
        result.writes.append(copy)
        result.changed.append(key)
        return copy
    }

    /// A conflict under `resolve` for the program's resolver: the entries that won and lost, the
    /// value both replaced (nil: a removal, or not known here), and keep both's copy of the loser
    /// when one was written (the fallback, removed when the resolver answers).
    package struct Resolution: Equatable, Sendable {
        package let key: String
        package let winner: StoreEntry
        package let loser: StoreEntry
        package let ancestor: PropertyListValue?
        package let fallback: StoreEntry?
    }

    /// Whether the winner's writer had not seen the loser: it replaced nothing, or a version
    /// older than the loser.
    package static func conflict(winner: StoreEntry, loser: StoreEntry) -> Bool {
        guard let replaced = winner.replaces else { return true }
        return replaced < loser.version
    }

    /// Whether the conflict `loser` lost is reported for the first time: a loser that comes again
    /// (in another peer's answer) is reported once. The last 1,024 are remembered.
    private mutating func firstReport(of loser: StoreEntry) -> Bool {
        let mark = ReportedLoser(key: loser.key, version: loser.version)
        guard !reportedLosers.contains(mark) else { return false }
        if reportedLosers.count >= Self.reportedLosersKept { reportedLosers.removeAll() }
        reportedLosers.insert(mark)
        return true
    }

    struct ReportedLoser: Hashable, Sendable {
        let key: String
        let version: StoreVersion
    }
}
