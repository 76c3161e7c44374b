import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Writes a ``PropertyListValue`` as a canonical `bplist00` binary property list: one value, one byte sequence.
///
/// Why it exists: Foundation's `PropertyListSerialization` lays out dictionary
/// keys in the order the dictionary iterates them, which follows the per-process
/// hash seed, so the same value encodes to different bytes in every process.
/// Baton's golden test vectors, and other implementations of the protocol, need
/// one canonical encoding they can reproduce byte for byte. The output is read by
/// Foundation's `PropertyListSerialization` and by ``BinaryPropertyListReader``.
///
/// The canonical form:
/// - Objects are numbered in depth-first order starting with the root (object 0)
///   and laid out in that order right after the `bplist00` header. An array is
///   followed by its elements' trees in order; a dictionary is followed by all its
///   keys, then by its values' trees, both in key order.
/// - Dictionary keys are ordered by their UTF-8 bytes.
/// - Nothing is de-duplicated: every occurrence of a value is its own object.
/// - Integers: non-negative values in the fewest of 1, 2 or 4 bytes (unsigned),
///   anything else in 8 bytes (signed). Reals are always 8 bytes; dates are 8-byte
///   doubles of seconds since 2001-01-01.
/// - Strings of ASCII only are written as ASCII (`0x5_`), all others as UTF-16BE (`0x6_`).
/// - Lengths of 15 or more follow the marker as an integer object of the fewest bytes.
/// - Object references take the fewest of 1, 2, 4 or 8 bytes that can hold the
///   object count, and offset-table entries the fewest that can hold the offset
///   table's own offset (the rules CoreFoundation's reader checks).
/// - The trailer's unused bytes and sort version are zero; the top object is 0.
public struct BinaryPropertyListWriter: Sendable {
    /// A writer; it has no options, so that its output stays canonical.
    public init() {}

    /// The canonical binary plist bytes of `value`.
    public func write(_ value: PropertyListValue) -> [UInt8] {
        var builder = BinaryPropertyListBuilder()
        builder.add(value)
        return builder.finish()
    }
}

extension BinaryPropertyListBuilder {
    /// Adds `value`'s tree in canonical order: a dictionary's entries by their keys' UTF-8 bytes.
    public mutating func add(_ value: PropertyListValue) {
        switch value {
        case .string(let string): add(string)
        case .integer(let integer): add(integer)
        case .real(let real): add(real)
        case .boolean(let flag): add(flag)
        case .date(let date): add(date)
        case .data(let data): add(data)
        case .array(let elements):
            beginArray()
            for element in elements { add(element) }
            end()
        case .dictionary(let entries):
            let sorted = entries.sorted { Self.precedes($0.key, $1.key) }
            beginDictionary(stringKeys: sorted.map(\.key))
            for entry in sorted { add(entry.value) }
            end()
        }
    }

    /// Whether key `a` comes before key `b`: by their UTF-8 bytes, compared where they lie (a
    /// native string's always do) rather than a byte at a time through its UTF-8 view.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let order = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y -> Bool in
                let common = min(x.count, y.count)
                if common > 0, let p = x.baseAddress, let q = y.baseAddress {
                    let order = memcmp(p, q, common)
                    if order != 0 { return order < 0 }
                }
                return x.count < y.count
            }
        }
        return (order ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
