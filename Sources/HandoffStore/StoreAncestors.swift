import FoundationEssentials
import HandoffWire
import PropertyList

/// The values this store's writes replaced, per key: where a resolver finds the common ancestor
/// of two writes that conflict (docs/PROTOCOL.md, section 18, "resolve").
///
/// A device's history of one key is a chain: each entry it held replaced the one before. When a
/// winner arrives that replaced a version of that chain, that version is the last one both
/// writers had: the ancestor. One is kept for 30 days after it was replaced (as a tombstone is:
/// a conflict with it comes from a writer that had not heard of its replacement, and one away
/// longer than that can bring keys back all the same), at most `perKey` a key, and only in the
/// room the values leave of the store's byte limit: the oldest replaced go first, so that they
/// never make a write fail. Removals are not kept: their ancestor is nil.
package struct StoreAncestors: Sendable, Equatable {
    /// A value replaced: its version and when it was replaced (the replacing entry's clock).
    package struct Ancestor: Sendable, Equatable {
        package let key: String
        package let version: StoreVersion
        package let value: PropertyListValue
        package let replacedAt: UInt64
        /// What it counts: its key's UTF-8 bytes and its value's encoding, as an entry counts.
        package let size: Int
    }

    /// At most this many values kept per key.
    package static let perKey = 4

    private var byKey: [String: [Ancestor]] = [:]
    /// What the values kept count, in all.
    package private(set) var bytes = 0

    package init() {}

    /// Every value kept, oldest replaced first.
    package var all: [Ancestor] {
        byKey.values.flatMap { $0 }.sorted { ($0.replacedAt, $0.key) < ($1.replacedAt, $1.key) }
    }

    /// The value of `key` at `version`, when it was kept.
    package func value(of key: String, at version: StoreVersion?) -> PropertyListValue? {
        guard let version else { return nil }
        return byKey[key]?.first { $0.version == version }?.value
    }

    /// Keeps `replaced` (a value, of `size`) as replaced by `by`.
    package mutating func keep(_ replaced: StoreEntry, size: Int, by replacing: StoreVersion) {
        guard let value = replaced.value, size > 0 else { return }
        var list = byKey[replaced.key] ?? []
        guard !list.contains(where: { $0.version == replaced.version }) else { return }
        list.append(Ancestor(key: replaced.key, version: replaced.version, value: value, replacedAt: replacing.clock, size: size))
        bytes += size
        while list.count > Self.perKey { bytes -= list.removeFirst().size }
        byKey[replaced.key] = list
    }

    /// Keeps `ancestor` as read from the store's file.
    package mutating func keep(_ ancestor: Ancestor) {
        guard byKey[ancestor.key]?.contains(where: { $0.version == ancestor.version }) != true else { return }
        byKey[ancestor.key, default: []].append(ancestor)
        bytes += ancestor.size
    }

    /// Drops the values replaced before `clock`, then the oldest replaced until they count at
    /// most `room` bytes.
    package mutating func trim(replacedBefore clock: UInt64, room: Int) {
        guard !byKey.isEmpty else { return }
        let old = all.filter { $0.replacedAt < clock }
        for ancestor in old { drop(ancestor) }
        guard bytes > room else { return }
        for ancestor in all {
            drop(ancestor)
            if bytes <= room { break }
        }
    }

    private mutating func drop(_ ancestor: Ancestor) {
        guard var list = byKey[ancestor.key], let index = list.firstIndex(of: ancestor) else { return }
        list.remove(at: index)
        bytes -= ancestor.size
        byKey[ancestor.key] = list.isEmpty ? nil : list
    }

    // MARK: The file

    /// As the store's file keeps one: `key`, `version`, `value`, `replacedAt`.
    package static func plist(_ ancestor: Ancestor) -> PropertyListValue {
        .dictionary([
            "key": .string(ancestor.key), "version": .data(Data(ancestor.version.bytes)), "value": ancestor.value,
            "replacedAt": .integer(Int(clamping: ancestor.replacedAt)),
        ])
    }

    /// One read from the file; nil when it is not one.
    package static func ancestor(plist: PropertyListValue) -> Ancestor? {
        guard let dict = plist.dictionaryValue, let key = dict["key"]?.stringValue, StoreEntry.isValidKey(key),
            let bytes = dict["version"]?.dataValue, let version = StoreVersion(bytes: Array(bytes)),
            let value = dict["value"], let replacedAt = dict["replacedAt"]?.intValue, replacedAt >= 0
        else { return nil }
        let size = StoreEntry(key: key, value: value, version: version).size
        return Ancestor(key: key, version: version, value: value, replacedAt: UInt64(replacedAt), size: size)
    }
}
