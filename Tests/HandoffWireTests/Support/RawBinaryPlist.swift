/// Hand-made binary plists: objects given as raw bytes, references one byte wide unless said
/// otherwise. A copy of the builder in PropertyListTests, for the datagram budget test.
enum RawBinaryPlist {
    static func build(
        _ objects: [[UInt8]], top: UInt64 = 0, referenceSize: UInt8 = 1, offsetSize: UInt8? = nil,
        objectCount: UInt64? = nil, offsets: [Int]? = nil
    ) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var starts: [Int] = []
        for object in objects {
            starts.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        let width = offsetSize ?? (tableOffset < 256 ? 1 : 2)
        for offset in offsets ?? starts {
            bytes += bigEndian(UInt64(offset), width: Int(width))
        }
        bytes += [0, 0, 0, 0, 0, 0, width, referenceSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
        bytes += bigEndian(top, width: 8)
        bytes += bigEndian(UInt64(tableOffset), width: 8)
        return bytes
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    /// Where the offset table starts, from the trailer.
    static func tableOffset(of plist: [UInt8]) -> Int {
        plist.suffix(8).reduce(0) { $0 << 8 | Int($1) }
    }
}
