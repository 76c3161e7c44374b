/// Big-endian UTF-16, the encoding of a binary plist's non-ASCII strings, to and from Swift's
/// native UTF-8 in one pass over contiguous bytes. The standard library's generic transcoding
/// walks a 16 MB editing state in about a second; this takes a few tens of milliseconds.
enum UTF16BigEndian {
    /// How many UTF-16 code units the valid UTF-8 in `utf8` takes: one per scalar, two for
    /// a scalar beyond the BMP (a 4-byte UTF-8 sequence).
    static func unitCount(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for byte in utf8 where byte & 0xC0 != 0x80 {
            count += byte >= 0xF0 ? 2 : 1
        }
        return count
    }

    /// Appends the UTF-16BE form of `utf8`, which must be valid UTF-8 (a Swift string's is).
    static func append(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + 2 * unitCount(utf8))
        var i = 0
        let n = utf8.count
        while i < n {
            let lead = UInt32(utf8[i])
            let scalar: UInt32
            if lead < 0x80 {
                scalar = lead
                i += 1
            } else if lead < 0xE0 {
                scalar = (lead & 0x1F) << 6 | UInt32(utf8[i + 1] & 0x3F)
                i += 2
            } else if lead < 0xF0 {
                scalar = (lead & 0x0F) << 12 | UInt32(utf8[i + 1] & 0x3F) << 6 | UInt32(utf8[i + 2] & 0x3F)
                i += 3
            } else {
                scalar = (lead & 0x07) << 18 | UInt32(utf8[i + 1] & 0x3F) << 12 | UInt32(utf8[i + 2] & 0x3F) << 6
                    | UInt32(utf8[i + 3] & 0x3F)
                i += 4
            }
            if scalar < 0x1_0000 {
                output.append(UInt8(truncatingIfNeeded: scalar >> 8))
                output.append(UInt8(truncatingIfNeeded: scalar))
            } else {
                let value = scalar - 0x1_0000
                let high = 0xD800 | (value >> 10), low = 0xDC00 | (value & 0x3FF)
                output.append(UInt8(truncatingIfNeeded: high >> 8))
                output.append(UInt8(truncatingIfNeeded: high))
                output.append(UInt8(truncatingIfNeeded: low >> 8))
                output.append(UInt8(truncatingIfNeeded: low))
            }
        }
    }

    /// The string in the UTF-16BE bytes `bytes[range]` (an even count), or nil when a surrogate
    /// is unpaired or out of order: such text is refused, never repaired.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(range.count / 2 * 3)
        var i = range.lowerBound
        let end = range.upperBound
        while i + 1 < end {
            let unit = UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
            i += 2
            var scalar = unit
            if unit >= 0xD800, unit <= 0xDFFF {
                guard unit <= 0xDBFF, i + 1 < end else { return nil }
                let low = UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
                guard low >= 0xDC00, low <= 0xDFFF else { return nil }
                i += 2
                scalar = 0x1_0000 + ((unit - 0xD800) << 10 | (low - 0xDC00))
            }
            if scalar < 0x80 {
                utf8.append(UInt8(truncatingIfNeeded: scalar))
            } else if scalar < 0x800 {
                utf8.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
                utf8.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
            } else if scalar < 0x1_0000 {
                utf8.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
                utf8.append(UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F))
                utf8.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
            } else {
                utf8.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
                utf8.append(UInt8(truncatingIfNeeded: 0x80 | (scalar >> 12) & 0x3F))
                utf8.append(UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F))
                utf8.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
