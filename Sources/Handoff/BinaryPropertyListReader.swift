import Foundation

/// A strict, bounded reader of `bplist00` binary property lists, safe for bytes from the network.
///
/// Foundation's readers are not safe on hostile input (a crafted set crashes
/// `PropertyListSerialization`, a reference cycle overflows the stack of
/// `PropertyListDecoder`), so Baton reads every received payload with this type.
/// It checks the header, every trailer field, the offset table, every object's
/// offset and extent (with overflow-checked arithmetic), every reference, the
/// nesting depth and the object count before it trusts them, and it throws a
/// ``PropertyListReadError`` for anything else: it never traps.
///
/// Accepted are only the eight plist types: booleans, integers (1-, 2- and 4-byte
/// unsigned, 8-byte signed, 16-byte when the value fits in `Int`), 4- and 8-byte
/// reals, dates, data, ASCII and UTF-16BE strings, arrays, and dictionaries with
/// string keys (each key once). Null, fill, UIDs, sets and unknown markers are refused.
/// Objects may be shared (Foundation's writer shares equal values), but no container
/// may contain itself.
///
/// Depth counts containers: a root dictionary is at depth 1, a dictionary inside it
/// at depth 2; scalars add nothing. Recursion follows the depth, so keep
/// ``Limits/maxDepth`` modest (the protocol's 32).
public struct BinaryPropertyListReader: Sendable {
    /// The bounds a plist must stay within; the defaults are the wire limits of protocol version 1.
    public struct Limits: Sendable, Hashable {
        /// How deeply containers may nest; a container at a greater depth is refused.
        public var maxDepth: Int
        /// How many objects the plist's object table may hold.
        public var maxObjects: Int
        /// How many bytes the whole plist may have.
        public var maxBytes: Int
        /// How many values the result may unfold to when shared objects are counted once per use.
        ///
        /// Sharing lets a small file describe an enormous tree (an array holding the
        /// same array twice, 30 levels deep); this bounds the tree handed to callers.
        public var maxExpandedObjects: Int

        /// Limits with the protocol's defaults; `maxExpandedObjects` defaults to four times `maxObjects`.
        public init(maxDepth: Int = 32, maxObjects: Int = 65_536, maxBytes: Int = 60_000, maxExpandedObjects: Int? = nil) {
            self.maxDepth = maxDepth
            self.maxObjects = maxObjects
            self.maxBytes = maxBytes
            self.maxExpandedObjects = maxExpandedObjects ?? Self.fourTimes(maxObjects)
        }

        private static func fourTimes(_ count: Int) -> Int {
            let (product, overflow) = count.multipliedReportingOverflow(by: 4)
            return overflow ? Int.max : product
        }
    }

    /// The bounds this reader enforces.
    public var limits: Limits

    /// A reader enforcing `limits` (by default the protocol's).
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Reads one binary plist, or throws why it is not acceptable.
    public func read(_ bytes: some Collection<UInt8>) throws(PropertyListReadError) -> PropertyListValue {
        let count = bytes.count
        guard count <= limits.maxBytes else {
            throw .tooLarge(bytes: count, limit: limits.maxBytes)
        }
        var parser = try Parser(bytes: Array(bytes), limits: limits)
        return try parser.readTop()
    }
}

extension BinaryPropertyListReader {
    /// The state of one read: the validated layout plus what has been decoded so far.
    private struct Parser {
        static let header: [UInt8] = Array("bplist00".utf8)
        static let trailerSize = 32

        let bytes: [UInt8]
        let limits: Limits
        let referenceSize: Int
        let objectCount: Int
        let topObject: Int
        /// Where the object area ends (the offset table's first byte); objects live in `8..<objectAreaEnd`.
        let objectAreaEnd: Int
        let offsets: [Int]

        /// Decoded objects by object number, so shared objects are decoded once.
        var decoded: [PropertyListValue?]
        /// For each decoded object: how many containers deep its own tree goes (0 for a scalar).
        var heights: [Int]
        /// For each decoded object: how many values its tree unfolds to.
        var expandedSizes: [Int]
        /// The containers being expanded right now, from the top object down.
        var onPath: [Bool]

        init(bytes: [UInt8], limits: Limits) throws(PropertyListReadError) {
            self.bytes = bytes
            self.limits = limits
            let count = bytes.count

            guard count >= Self.header.count else {
                throw bytes.elementsEqual(Self.header.prefix(count)) && count > 0 ? .truncated(bytes: count) : .notBinaryPlist
            }
            guard bytes[0..<Self.header.count].elementsEqual(Self.header) else {
                throw .notBinaryPlist
            }
            // Header, at least one one-byte object, a one-byte offset table, the trailer.
            guard count >= Self.header.count + 2 + Self.trailerSize else {
                throw .truncated(bytes: count)
            }

            let trailer = count - Self.trailerSize
            let offsetSize = Int(bytes[trailer + 6])
            guard (1...8).contains(offsetSize) else { throw .invalidOffsetSize(offsetSize) }
            let referenceSize = Int(bytes[trailer + 7])
            guard (1...8).contains(referenceSize) else { throw .invalidReferenceSize(referenceSize) }
            let objectCount64 = Self.unsigned(bytes, at: trailer + 8, width: 8)
            let topObject64 = Self.unsigned(bytes, at: trailer + 16, width: 8)
            let tableOffset64 = Self.unsigned(bytes, at: trailer + 24, width: 8)

            guard objectCount64 <= UInt64(max(limits.maxObjects, 0)) else {
                throw .tooManyObjects(count: Int(clamping: objectCount64), limit: limits.maxObjects)
            }
            let objectCount = Int(objectCount64)
            guard objectCount > 0 else { throw .invalidObjectCount(0) }
            guard topObject64 < objectCount64 else {
                throw .topObjectOutOfRange(index: Int(clamping: topObject64), count: objectCount)
            }

            // The offset table sits right after the objects and ends where the trailer starts.
            let (tableSize, sizeOverflow) = objectCount.multipliedReportingOverflow(by: offsetSize)
            guard tableOffset64 < UInt64(trailer), !sizeOverflow,
                  Int(tableOffset64) > Self.header.count,
                  tableSize == trailer - Int(tableOffset64)
            else {
                throw .offsetTableOutOfRange(offset: Int(clamping: tableOffset64))
            }
            let objectAreaEnd = Int(tableOffset64)
            // Every object takes at least one byte.
            guard objectCount <= objectAreaEnd - Self.header.count else {
                throw .invalidObjectCount(objectCount)
            }

            var offsets: [Int] = []
            offsets.reserveCapacity(objectCount)
            for object in 0..<objectCount {
                let offset = Self.unsigned(bytes, at: objectAreaEnd + object * offsetSize, width: offsetSize)
                guard offset >= UInt64(Self.header.count), offset < UInt64(objectAreaEnd) else {
                    throw .offsetOutOfRange(object: object, offset: Int(clamping: offset))
                }
                offsets.append(Int(offset))
            }

            self.referenceSize = referenceSize
            self.objectCount = objectCount
            self.topObject = Int(topObject64)
            self.objectAreaEnd = objectAreaEnd
            self.offsets = offsets
            self.decoded = Array(repeating: nil, count: objectCount)
            self.heights = Array(repeating: 0, count: objectCount)
            self.expandedSizes = Array(repeating: 0, count: objectCount)
            self.onPath = Array(repeating: false, count: objectCount)
        }

        mutating func readTop() throws(PropertyListReadError) -> PropertyListValue {
            try decodeObject(topObject, parentDepth: 0)
        }

        /// The big-endian unsigned integer of `width` (1...8) bytes at `position`; the caller has checked the bounds.
        static func unsigned(_ bytes: [UInt8], at position: Int, width: Int) -> UInt64 {
            var result: UInt64 = 0
            for index in position..<(position + width) {
                result = result << 8 | UInt64(bytes[index])
            }
            return result
        }

        // MARK: Objects

        /// The value of object `object`, found inside `parentDepth` containers.
        mutating func decodeObject(_ object: Int, parentDepth: Int) throws(PropertyListReadError) -> PropertyListValue {
            if let value = decoded[object] {
                guard parentDepth + heights[object] <= limits.maxDepth else {
                    throw .tooDeep(limit: limits.maxDepth)
                }
                return value
            }
            guard !onPath[object] else { throw .cycle(object: object) }

            let start = offsets[object]
            let marker = bytes[start]
            let low = Int(marker & 0x0F)
            var height = 0
            var expandedSize = 1
            let value: PropertyListValue

            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: value = .boolean(false)
                case 0x09: value = .boolean(true)
                default: throw .unsupportedObject(marker: marker, object: object)
                }
            case 0x1:
                value = .integer(try integer(object, marker: marker, at: start))
            case 0x2:
                guard marker == 0x22 || marker == 0x23 else {
                    throw .unsupportedObject(marker: marker, object: object)
                }
                let width = 1 << low
                let content = try extent(object, from: start + 1, count: 1, unit: width)
                let bits = Self.unsigned(bytes, at: content.lowerBound, width: width)
                value = .real(width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))) : Double(bitPattern: bits))
            case 0x3:
                guard marker == 0x33 else { throw .unsupportedObject(marker: marker, object: object) }
                let content = try extent(object, from: start + 1, count: 1, unit: 8)
                let seconds = Double(bitPattern: Self.unsigned(bytes, at: content.lowerBound, width: 8))
                guard seconds.isFinite else { throw .invalidDate(object: object) }
                value = .date(Date(timeIntervalSinceReferenceDate: seconds))
            case 0x4:
                let (count, contentStart) = try length(object, low: low, at: start)
                value = .data(Data(bytes[try extent(object, from: contentStart, count: count, unit: 1)]))
            case 0x5:
                let (count, contentStart) = try length(object, low: low, at: start)
                let content = bytes[try extent(object, from: contentStart, count: count, unit: 1)]
                guard content.allSatisfy({ $0 < 0x80 }) else { throw .invalidString(object: object) }
                value = .string(String(decoding: content, as: UTF8.self))
            case 0x6:
                let (count, contentStart) = try length(object, low: low, at: start)
                let content = try extent(object, from: contentStart, count: count, unit: 2)
                value = .string(try utf16String(object, in: content))
            case 0xA:
                let (count, contentStart) = try length(object, low: low, at: start)
                let references = try self.references(object, from: contentStart, count: count)
                let depth = try enter(object, parentDepth: parentDepth)
                var elements: [PropertyListValue] = []
                elements.reserveCapacity(count)
                for reference in references {
                    elements.append(try decodeObject(reference, parentDepth: depth))
                    height = max(height, heights[reference])
                    expandedSize = try grow(expandedSize, by: expandedSizes[reference])
                }
                onPath[object] = false
                height += 1
                value = .array(elements)
            case 0xD:
                let (count, contentStart) = try length(object, low: low, at: start)
                let (doubled, overflow) = count.multipliedReportingOverflow(by: 2)
                guard !overflow else { throw .objectOutOfBounds(object: object) }
                let references = try self.references(object, from: contentStart, count: doubled)
                let depth = try enter(object, parentDepth: parentDepth)
                var entries: [String: PropertyListValue] = [:]
                entries.reserveCapacity(count)
                for index in 0..<count {
                    let keyReference = references[index]
                    let keyMarker = bytes[offsets[keyReference]] >> 4
                    guard keyMarker == 0x5 || keyMarker == 0x6 else { throw .nonStringKey(object: object) }
                    guard case .string(let key) = try decodeObject(keyReference, parentDepth: depth) else {
                        throw .nonStringKey(object: object)
                    }
                    expandedSize = try grow(expandedSize, by: expandedSizes[keyReference])
                    let valueReference = references[count + index]
                    let element = try decodeObject(valueReference, parentDepth: depth)
                    height = max(height, heights[valueReference])
                    expandedSize = try grow(expandedSize, by: expandedSizes[valueReference])
                    guard entries.updateValue(element, forKey: key) == nil else {
                        throw .duplicateKey(key, object: object)
                    }
                }
                onPath[object] = false
                height += 1
                value = .dictionary(entries)
            default:
                throw .unsupportedObject(marker: marker, object: object)
            }

            decoded[object] = value
            heights[object] = height
            expandedSizes[object] = expandedSize
            return value
        }

        /// Marks container `object` as being expanded and returns its depth, or throws when that is too deep.
        mutating func enter(_ object: Int, parentDepth: Int) throws(PropertyListReadError) -> Int {
            let depth = parentDepth + 1
            guard depth <= limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth) }
            onPath[object] = true
            return depth
        }

        func grow(_ size: Int, by added: Int) throws(PropertyListReadError) -> Int {
            let (total, overflow) = size.addingReportingOverflow(added)
            guard !overflow, total <= limits.maxExpandedObjects else {
                throw .tooManyExpandedObjects(limit: limits.maxExpandedObjects)
            }
            return total
        }

        /// The byte range of `count` items of `unit` bytes starting at `position`, when it lies inside the object area.
        func extent(_ object: Int, from position: Int, count: Int, unit: Int) throws(PropertyListReadError) -> Range<Int> {
            let (size, sizeOverflow) = count.multipliedReportingOverflow(by: unit)
            let (end, endOverflow) = position.addingReportingOverflow(size)
            guard !sizeOverflow, !endOverflow, count >= 0, position <= end, end <= objectAreaEnd else {
                throw .objectOutOfBounds(object: object)
            }
            return position..<end
        }

        /// The element count of a data, string or container object, and where its content starts.
        ///
        /// A low nibble below 15 is the count itself; 15 means an integer object with the count follows.
        func length(_ object: Int, low: Int, at start: Int) throws(PropertyListReadError) -> (count: Int, contentStart: Int) {
            if low < 0x0F {
                return (low, start + 1)
            }
            let markerRange = try extent(object, from: start + 1, count: 1, unit: 1)
            let intMarker = bytes[markerRange.lowerBound]
            guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
                throw .unsupportedObject(marker: intMarker, object: object)
            }
            let width = 1 << Int(intMarker & 0x0F)
            let content = try extent(object, from: markerRange.upperBound, count: 1, unit: width)
            let count = Self.unsigned(bytes, at: content.lowerBound, width: width)
            guard count <= UInt64(objectAreaEnd) else { throw .objectOutOfBounds(object: object) }
            return (Int(count), content.upperBound)
        }

        /// The `count` object references of a container, each checked to name an existing object.
        func references(_ object: Int, from position: Int, count: Int) throws(PropertyListReadError) -> [Int] {
            let content = try extent(object, from: position, count: count, unit: referenceSize)
            var references: [Int] = []
            references.reserveCapacity(count)
            var cursor = content.lowerBound
            while cursor < content.upperBound {
                let reference = Self.unsigned(bytes, at: cursor, width: referenceSize)
                guard reference < UInt64(objectCount) else {
                    throw .referenceOutOfRange(object: object, reference: Int(clamping: reference), count: objectCount)
                }
                references.append(Int(reference))
                cursor += referenceSize
            }
            return references
        }

        func integer(_ object: Int, marker: UInt8, at start: Int) throws(PropertyListReadError) -> Int {
            let sizeLog = Int(marker & 0x0F)
            guard sizeLog <= 4 else { throw .unsupportedObject(marker: marker, object: object) }
            let width = 1 << sizeLog
            let content = try extent(object, from: start + 1, count: 1, unit: width)
            switch width {
            case 1, 2, 4:
                return Int(Self.unsigned(bytes, at: content.lowerBound, width: width))
            case 8:
                return Int(Int64(bitPattern: Self.unsigned(bytes, at: content.lowerBound, width: 8)))
            default:
                // 128-bit two's complement: accepted when the high half only extends the low half's sign.
                let high = Self.unsigned(bytes, at: content.lowerBound, width: 8)
                let low = Self.unsigned(bytes, at: content.lowerBound + 8, width: 8)
                let lowIsNegative = low >> 63 == 1
                guard high == (lowIsNegative ? UInt64.max : 0) else {
                    throw .integerOutOfRange(object: object)
                }
                return Int(Int64(bitPattern: low))
            }
        }

        /// Decodes big-endian UTF-16, refusing lone surrogates instead of repairing them.
        func utf16String(_ object: Int, in content: Range<Int>) throws(PropertyListReadError) -> String {
            var units: [UInt16] = []
            units.reserveCapacity(content.count / 2)
            var cursor = content.lowerBound
            while cursor < content.upperBound {
                units.append(UInt16(bytes[cursor]) << 8 | UInt16(bytes[cursor + 1]))
                cursor += 2
            }
            var index = 0
            while index < units.count {
                let unit = units[index]
                if UTF16.isLeadSurrogate(unit) {
                    guard index + 1 < units.count, UTF16.isTrailSurrogate(units[index + 1]) else {
                        throw .invalidString(object: object)
                    }
                    index += 2
                } else if UTF16.isTrailSurrogate(unit) {
                    throw .invalidString(object: object)
                } else {
                    index += 1
                }
            }
            return String(decoding: units, as: UTF16.self)
        }
    }
}
