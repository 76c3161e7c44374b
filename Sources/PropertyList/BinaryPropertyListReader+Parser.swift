import FoundationEssentials

extension BinaryPropertyListReader {
    /// The state of one read: the validated layout plus what has been decoded so far.
    struct Parser {
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

        /// How many string and data bytes the result may unfold to (``Limits/expandedByteBudget(forInputOf:)``).
        let byteBudget: Int

        /// What the reader knows of one object, by object number.
        struct Decoded {
            /// The value, once decoded: shared objects are decoded once.
            var value: PropertyListValue?
            /// How many containers deep its own tree goes (0 for a scalar).
            var height = 0
            /// How many values its tree unfolds to.
            var expandedSize = 0
            /// How many string and data bytes its tree unfolds to.
            var expandedBytes = 0
            /// Whether it is a container being expanded right now, on the path from the top object.
            var onPath = false
        }

        var objects: [Decoded]

        /// The layout of `bytes`, checked; `decoding` false for a reader that makes no values
        /// (`BinaryPropertyListView`), which needs no record per object.
        init(bytes: [UInt8], limits: Limits, decoding: Bool = true) throws(PropertyListReadError) {
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
            self.byteBudget = limits.expandedByteBudget(forInputOf: count)
            self.objects = decoding ? Array(repeating: Decoded(), count: objectCount) : []
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
    }
}
