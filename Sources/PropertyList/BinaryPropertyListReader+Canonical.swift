import Glibc

/// A binary plist in the canonical layout (``BinaryPropertyListBuilder``'s), checked and then
/// read in place: a message of known shape takes its fields straight from the bytes, with no
/// ``PropertyListValue`` tree, no dictionaries hashed and no strings it does not ask for.
///
/// It accepts less than ``BinaryPropertyListReader/read(_:)``, never more: the layout is the
/// same reader's (`Parser`), every object reachable from the top is checked as that reader
/// checks it, and on top of that the objects must be in the canonical order (the top object
/// first, then each container's children's trees in order, a dictionary's keys before its
/// values), each used exactly once, holding only booleans, integers of up to 8 bytes, strings,
/// arrays and dictionaries of at most ``mostKeys`` ASCII keys. Without sharing, the budgets of
/// expanded objects and bytes are plain sums, and no container can hold itself. Anything else
/// gives nil, and the caller reads the bytes with ``BinaryPropertyListReader/read(_:)``, which
/// decides: whatever a view reads, that reader reads the same from the same bytes.
public final class BinaryPropertyListView {
    /// One object of the plist.
    public struct Node {
        let object: Int
    }

    public enum Kind {
        case boolean, integer, string, array, dictionary
    }

    /// The most keys a dictionary in a view may have (a shell message's have 13 at most): keys
    /// are compared with each other, and a dictionary of many is left to the reader's hashing.
    public static let mostKeys = 32

    /// What the walk learned of one object: its marker; where its content starts (a string's
    /// bytes, a container's references); a string's or container's count (of bytes, UTF-16
    /// units, elements or keys), or an integer's value.
    private struct Entry {
        var marker: UInt8 = 0
        var start = 0
        var number = 0
    }

    private let bytes: [UInt8]
    private let referenceSize: Int
    private var entries: [Entry]

    /// The top object.
    public var top: Node { Node(object: 0) }

    /// A view of `bytes` when they are a canonical plist within `limits`, else nil.
    public init?(_ bytes: [UInt8], limits: BinaryPropertyListReader.Limits) {
        guard bytes.count <= limits.maxBytes,
              let parser = try? BinaryPropertyListReader.Parser(bytes: bytes, limits: limits, decoding: false),
              parser.topObject == 0
        else { return nil }
        self.bytes = bytes
        referenceSize = parser.referenceSize
        entries = Array(repeating: Entry(), count: parser.objectCount)
        var walk = Walk(parser: parser)
        guard walk.check(0, depth: 0, into: &entries), walk.next == parser.objectCount else { return nil }
    }

    /// The walk over the objects in canonical order: the next object number it expects, and the
    /// objects and string bytes the tree unfolds to so far.
    private struct Walk {
        let parser: BinaryPropertyListReader.Parser
        var next = 1
        var objects = 0
        var bytes = 0

        /// Whether `object` and its tree are valid, in canonical order from `next`, and within
        /// the limits; what it learns goes into `entries`.
        mutating func check(_ object: Int, depth: Int, into entries: inout [Entry]) -> Bool {
            objects += 1
            guard objects <= parser.limits.maxExpandedObjects else { return false }
            let start = parser.offsets[object]
            let marker = parser.bytes[start]
            let low = Int(marker & 0x0F)
            entries[object].marker = marker
            switch marker >> 4 {
            case 0x0:
                return marker == 0x08 || marker == 0x09
            case 0x1:
                guard low <= 3, let value = try? parser.integer(object, marker: marker, at: start) else { return false }
                entries[object].number = value
                return true
            case 0x5:
                guard let (count, contentStart) = try? parser.length(object, low: low, at: start),
                      let content = try? parser.extent(object, from: contentStart, count: count, unit: 1),
                      parser.bytes.withUnsafeBufferPointer({ UTF16BigEndian.isASCII(UnsafeBufferPointer(rebasing: $0[content])) })
                else { return false }
                entries[object].start = contentStart
                entries[object].number = count
                bytes += count
                return bytes <= parser.byteBudget
            case 0x6:
                guard let (count, contentStart) = try? parser.length(object, low: low, at: start),
                      let content = try? parser.extent(object, from: contentStart, count: count, unit: 2),
                      let string = try? parser.utf16String(object, in: content)
                else { return false }
                entries[object].start = contentStart
                entries[object].number = count
                bytes += string.utf8.count
                return bytes <= parser.byteBudget
            case 0xA, 0xD:
                let isDictionary = marker >> 4 == 0xD
                guard depth + 1 <= parser.limits.maxDepth, let (count, contentStart) = try? parser.length(object, low: low, at: start),
                      !isDictionary || count <= BinaryPropertyListView.mostKeys,
                      let references = try? parser.references(object, from: contentStart, count: isDictionary ? 2 * count : count)
                else { return false }
                entries[object].start = contentStart
                entries[object].number = count
                for index in 0..<references.count {
                    let child = parser.reference(index, of: references)
                    guard child == next else { return false }
                    next += 1
                    guard check(child, depth: depth + 1, into: &entries) else { return false }
                    // A key: an ASCII string, once in its dictionary.
                    if isDictionary, index < count {
                        let key = entries[child]
                        guard key.marker >> 4 == 0x5 else { return false }
                        for earlier in 0..<index {
                            let other = entries[parser.reference(earlier, of: references)]
                            guard other.number != key.number
                                || !parser.bytes[other.start..<(other.start + other.number)].elementsEqual(
                                    parser.bytes[key.start..<(key.start + key.number)])
                            else { return false }
                        }
                    }
                }
                return true
            default:
                return false
            }
        }
    }

    // MARK: Reading

    public func kind(_ node: Node) -> Kind {
        switch entries[node.object].marker >> 4 {
        case 0x0: .boolean
        case 0x1: .integer
        case 0x5, 0x6: .string
        case 0xA: .array
        default: .dictionary
        }
    }

    public func bool(_ node: Node) -> Bool? {
        switch entries[node.object].marker {
        case 0x08: false
        case 0x09: true
        default: nil
        }
    }

    public func int(_ node: Node) -> Int? {
        let entry = entries[node.object]
        return entry.marker >> 4 == 0x1 ? entry.number : nil
    }

    /// The string, made as ``BinaryPropertyListReader/read(_:)`` makes it.
    public func string(_ node: Node) -> String? {
        let entry = entries[node.object]
        switch entry.marker >> 4 {
        case 0x5:
            return bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[entry.start..<(entry.start + entry.number)]), as: UTF8.self)
            }
        case 0x6:
            return bytes.withUnsafeBufferPointer { UTF16BigEndian.decode($0, entry.start..<(entry.start + 2 * entry.number)) }
        default:
            return nil
        }
    }

    /// An array's element count; nil for another kind.
    public func count(_ node: Node) -> Int? {
        let entry = entries[node.object]
        return entry.marker >> 4 == 0xA ? entry.number : nil
    }

    /// Element `index` of an array, which must be below its `count`.
    public func element(_ index: Int, of node: Node) -> Node {
        let entry = entries[node.object]
        precondition(entry.marker >> 4 == 0xA && (0..<entry.number).contains(index), "an element of an array")
        return Node(object: reference(at: entry.start + index * referenceSize))
    }

    /// A dictionary's keys and values, in the plist's order; nil for another kind.
    public func entries(_ node: Node) -> [(key: String, value: Node)]? {
        let entry = entries[node.object]
        guard entry.marker >> 4 == 0xD else { return nil }
        return (0..<entry.number).map { index in
            let key = Node(object: reference(at: entry.start + index * referenceSize))
            return (string(key) ?? "", Node(object: reference(at: entry.start + (entry.number + index) * referenceSize)))
        }
    }

    /// A dictionary's value for `key`; nil when it has none, or for another kind.
    public func value(forKey key: String, in node: Node) -> Node? {
        let entry = entries[node.object]
        guard entry.marker >> 4 == 0xD else { return nil }
        var key = key
        return key.withUTF8 { wanted -> Node? in
            bytes.withUnsafeBufferPointer { all -> Node? in
                for index in 0..<entry.number {
                    let name = entries[reference(at: entry.start + index * referenceSize)]
                    guard name.number == wanted.count,
                          wanted.isEmpty || (all[name.start] == wanted[0] && memcmp(all.baseAddress! + name.start, wanted.baseAddress!, wanted.count) == 0)
                    else { continue }
                    return Node(object: reference(at: entry.start + (entry.number + index) * referenceSize))
                }
                return nil
            }
        }
    }

    /// The object number of the reference at `position`.
    private func reference(at position: Int) -> Int {
        var result = 0
        for index in position..<(position + referenceSize) {
            result = result << 8 | Int(bytes[index])
        }
        return result
    }
}
