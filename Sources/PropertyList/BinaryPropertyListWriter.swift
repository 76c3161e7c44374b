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
        var objects: [FlatObject] = []
        _ = Self.flatten(value, into: &objects)

        let referenceSize = Self.byteWidth(UInt64(objects.count))
        var output: [UInt8] = []
        // Room for all of it at once: a 28 MB state grown by doubling would be copied again
        // (and its pages touched again) by the offset table's few bytes.
        output.reserveCapacity(Self.estimatedSize(of: objects))
        output.append(contentsOf: "bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            Self.append(object, referenceSize: referenceSize, to: &output)
        }

        let tableOffset = output.count
        let offsetSize = Self.byteWidth(UInt64(tableOffset))
        for offset in offsets {
            Self.appendBigEndian(UInt64(offset), width: offsetSize, to: &output)
        }

        output.append(contentsOf: repeatElement(0, count: 6))  // unused bytes, sort version
        output.append(UInt8(offsetSize))
        output.append(UInt8(referenceSize))
        Self.appendBigEndian(UInt64(objects.count), width: 8, to: &output)
        Self.appendBigEndian(0, width: 8, to: &output)  // top object
        Self.appendBigEndian(UInt64(tableOffset), width: 8, to: &output)
        return output
    }
}

extension BinaryPropertyListWriter {
    /// One object of the object table: a scalar, or a container holding object numbers.
    private enum FlatObject {
        case scalar(PropertyListValue)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    /// Appends `value`'s tree to `objects` in canonical order and returns its object number.
    private static func flatten(_ value: PropertyListValue, into objects: inout [FlatObject]) -> Int {
        let index = objects.count
        switch value {
        case .array(let elements):
            objects.append(.array([]))
            let children = elements.map { flatten($0, into: &objects) }
            objects[index] = .array(children)
        case .dictionary(let entries):
            objects.append(.dictionary(keys: [], values: []))
            let keys = entries.keys.sorted(by: precedes)
            let keyObjects = keys.map { key in
                objects.append(.scalar(.string(key)))
                return objects.count - 1
            }
            let valueObjects = keys.map { key in
                // The key comes from `entries`, so the lookup always succeeds.
                flatten(entries[key] ?? .dictionary([:]), into: &objects)
            }
            objects[index] = .dictionary(keys: keyObjects, values: valueObjects)
        default:
            objects.append(.scalar(value))
        }
        return index
    }

    /// Whether key `a` comes before key `b`: by their UTF-8 bytes, compared where they lie (a
    /// native string's always do) rather than a byte at a time through its UTF-8 view.
    private static func precedes(_ a: String, _ b: String) -> Bool {
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

    /// At least the bytes `objects` take when written: UTF-16 never takes more than twice a
    /// text's UTF-8, and no marker, length, reference or offset entry more than 9 bytes each.
    private static func estimatedSize(of objects: [FlatObject]) -> Int {
        var size = 8 + 32 + 9 * objects.count
        for object in objects {
            switch object {
            case .scalar(.string(let string)): size += 9 + 2 * string.utf8.count
            case .scalar(.data(let data)): size += 9 + data.count
            case .scalar: size += 9
            case .array(let children): size += 9 + 8 * children.count
            case .dictionary(let keys, let values): size += 9 + 8 * (keys.count + values.count)
            }
        }
        return size
    }

    private static func append(_ object: FlatObject, referenceSize: Int, to output: inout [UInt8]) {
        switch object {
        case .array(let children):
            appendMarker(0xA0, count: children.count, to: &output)
            for child in children {
                appendBigEndian(UInt64(child), width: referenceSize, to: &output)
            }
        case .dictionary(let keys, let values):
            appendMarker(0xD0, count: keys.count, to: &output)
            for child in keys {
                appendBigEndian(UInt64(child), width: referenceSize, to: &output)
            }
            for child in values {
                appendBigEndian(UInt64(child), width: referenceSize, to: &output)
            }
        case .scalar(let value):
            appendScalar(value, to: &output)
        }
    }

    private static func appendScalar(_ value: PropertyListValue, to output: inout [UInt8]) {
        switch value {
        case .boolean(let flag):
            output.append(flag ? 0x09 : 0x08)
        case .integer(let integer):
            appendInteger(integer, to: &output)
        case .real(let real):
            output.append(0x23)
            appendBigEndian(real.bitPattern, width: 8, to: &output)
        case .date(let date):
            output.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, width: 8, to: &output)
        case .data(let data):
            appendMarker(0x40, count: data.count, to: &output)
            output.append(contentsOf: data)
        case .string(var string):
            string.withUTF8 { utf8 in
                if UTF16BigEndian.isASCII(utf8) {
                    appendMarker(0x50, count: utf8.count, to: &output)
                    output.append(contentsOf: utf8)
                } else {
                    let units = UTF16BigEndian.unitCount(utf8)
                    appendMarker(0x60, count: units, to: &output)
                    UTF16BigEndian.append(utf8, units: units, to: &output)
                }
            }
        case .array, .dictionary:
            preconditionFailure("containers are flattened before they are written")
        }
    }

    /// A marker whose low nibble is `count`, or 0xF followed by `count` as an integer object.
    private static func appendMarker(_ kind: UInt8, count: Int, to output: inout [UInt8]) {
        if count < 0x0F {
            output.append(kind | UInt8(count))
        } else {
            output.append(kind | 0x0F)
            appendInteger(count, to: &output)
        }
    }

    private static func appendInteger(_ integer: Int, to output: inout [UInt8]) {
        let width = integer < 0 ? 8 : byteWidth(UInt64(integer))
        output.append(0x10 | UInt8(width.trailingZeroBitCount))
        appendBigEndian(UInt64(bitPattern: Int64(integer)), width: width, to: &output)
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    private static func byteWidth(_ value: UInt64) -> Int {
        switch value {
        case 0...0xFF: 1
        case 0...0xFFFF: 2
        case 0...0xFFFF_FFFF: 4
        default: 8
        }
    }

    private static func appendBigEndian(_ value: UInt64, width: Int, to output: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
