/// Big-endian UTF-16, the encoding of a binary plist's non-ASCII strings, to and from Swift's
/// native UTF-8 in one pass over contiguous bytes. The standard library's generic transcoding
/// walks a 16 MB editing state in about a second; this takes a few tens of milliseconds.
///
/// Text is mostly ASCII even in other scripts (spaces, digits, punctuation, markup), so each
/// loop takes eight bytes at a time while they are all ASCII, and a scalar at a time otherwise.
enum UTF16BigEndian {
    /// The high bit of each of a word's eight bytes.
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Whether every byte of `utf8` is ASCII.
    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let n = utf8.count
        var i = 0
        var seen: UInt64 = 0
        while i + 8 <= n {
            seen |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < n {
            seen |= UInt64(base[i])
            i += 1
        }
        return seen & highBits == 0
    }

    /// How many UTF-16 code units the valid UTF-8 in `utf8` takes: one per scalar, two for
    /// a scalar beyond the BMP (a 4-byte UTF-8 sequence).
    static func unitCount(_ utf8: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let n = utf8.count
        var count = 0
        var i = 0
        while i + 8 <= n {
            // A byte's bit 7 in `word << s` is its own bit 7 − s: no bit crosses into the next
            // byte's bit 7, so each lane is counted alone.
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            if word & highBits != 0 {
                let continuation = word & ~(word << 1) & highBits        // 10xxxxxx
                let fourByteLead = word & (word << 1) & (word << 2) & (word << 3) & highBits  // 11110xxx
                count += 8 - continuation.nonzeroBitCount + fourByteLead.nonzeroBitCount
            } else {
                count += 8
            }
            i += 8
        }
        while i < n {
            let byte = base[i]
            if byte & 0xC0 != 0x80 { count += byte >= 0xF0 ? 2 : 1 }
            i += 1
        }
        return count
    }

    /// Appends the UTF-16BE form of `utf8`, which must be valid UTF-8 (a Swift string's is),
    /// and whose `unitCount` is `units`.
    static func append(_ utf8: UnsafeBufferPointer<UInt8>, units: Int, to output: inout [UInt8]) {
        guard let source = utf8.baseAddress, units > 0 else { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: 2 * units))
        output.withUnsafeMutableBufferPointer { buffer in
            let target = UnsafeMutableRawPointer(buffer.baseAddress! + start)
            let written = write(source, count: utf8.count, to: target)
            precondition(written == 2 * units, "the unit count does not match the text")
        }
    }

    /// Appends the UTF-16BE form of `utf8`, which must be valid UTF-8.
    static func append(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        append(utf8, units: unitCount(utf8), to: &output)
    }

    /// Writes the UTF-16BE form of the `count` bytes of UTF-8 at `source` to `target`, which
    /// has room for it; returns the bytes written.
    static func write(_ source: UnsafePointer<UInt8>, count n: Int, to target: UnsafeMutableRawPointer) -> Int {
        let raw = UnsafeRawPointer(source)
        var i = 0
        var o = 0
        while i < n {
            if i + 8 <= n {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                if word & highBits == 0 {
                    // Eight ASCII bytes become eight units 00 xx: each byte spread to the high
                    // half of a 16-bit lane of two little-endian words.
                    target.storeBytes(of: spread(word & 0xFFFF_FFFF).littleEndian, toByteOffset: o, as: UInt64.self)
                    target.storeBytes(of: spread(word >> 32).littleEndian, toByteOffset: o + 8, as: UInt64.self)
                    i += 8
                    o += 16
                    continue
                }
            }
            let lead = UInt32(source[i])
            let scalar: UInt32
            if lead < 0x80 {
                scalar = lead
                i += 1
            } else if lead < 0xE0 {
                scalar = (lead & 0x1F) << 6 | UInt32(source[i + 1] & 0x3F)
                i += 2
            } else if lead < 0xF0 {
                scalar = (lead & 0x0F) << 12 | UInt32(source[i + 1] & 0x3F) << 6 | UInt32(source[i + 2] & 0x3F)
                i += 3
            } else {
                scalar = (lead & 0x07) << 18 | UInt32(source[i + 1] & 0x3F) << 12 | UInt32(source[i + 2] & 0x3F) << 6
                    | UInt32(source[i + 3] & 0x3F)
                i += 4
            }
            if scalar < 0x1_0000 {
                target.storeBytes(of: UInt16(truncatingIfNeeded: scalar).bigEndian, toByteOffset: o, as: UInt16.self)
                o += 2
            } else {
                let value = scalar - 0x1_0000
                let high = 0xD800 | (value >> 10), low = 0xDC00 | (value & 0x3FF)
                target.storeBytes(of: UInt16(truncatingIfNeeded: high).bigEndian, toByteOffset: o, as: UInt16.self)
                target.storeBytes(of: UInt16(truncatingIfNeeded: low).bigEndian, toByteOffset: o + 2, as: UInt16.self)
                o += 4
            }
        }
        return o
    }

    /// The four low bytes of `half` (b0 lowest), each moved to the high byte of a 16-bit lane:
    /// as little-endian memory, 00 b0 00 b1 00 b2 00 b3.
    @inline(__always)
    private static func spread(_ half: UInt64) -> UInt64 {
        var lanes = (half | half << 16) & 0x0000_FFFF_0000_FFFF
        lanes = (lanes | lanes << 8) & 0x00FF_00FF_00FF_00FF
        return lanes << 8
    }

    /// The string in the UTF-16BE bytes `bytes[range]` (an even count), or nil when a surrogate
    /// is unpaired or out of order: such text is refused, never repaired.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        guard let raw = UnsafeRawPointer(bytes.baseAddress), range.count >= 2 else { return "" }
        var refused = false
        // A unit takes at most 3 bytes of UTF-8 (a surrogate pair, two units, takes 4).
        let string = String(unsafeUninitializedCapacity: range.count / 2 * 3) { target in
            var i = range.lowerBound
            let end = range.upperBound
            var o = 0
            let out = UnsafeMutableRawPointer(target.baseAddress!)
            while i + 1 < end {
                if i + 16 <= end {
                    // Little-endian, a unit 00 xx is a lane whose low byte is 0 and high byte
                    // < 0x80: eight of them in a row are eight ASCII bytes.
                    let first = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    let second = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                    if (first | second) & 0x80FF_80FF_80FF_80FF == 0 {
                        out.storeBytes(of: (gather(first) | gather(second) << 32).littleEndian, toByteOffset: o, as: UInt64.self)
                        i += 16
                        o += 8
                        continue
                    }
                }
                let unit = UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
                i += 2
                var scalar = unit
                if unit >= 0xD800, unit <= 0xDFFF {
                    guard unit <= 0xDBFF, i + 1 < end else {
                        refused = true
                        return 0
                    }
                    let low = UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1])
                    guard low >= 0xDC00, low <= 0xDFFF else {
                        refused = true
                        return 0
                    }
                    i += 2
                    scalar = 0x1_0000 + ((unit - 0xD800) << 10 | (low - 0xDC00))
                }
                if scalar < 0x80 {
                    target[o] = UInt8(truncatingIfNeeded: scalar)
                    o += 1
                } else if scalar < 0x800 {
                    target[o] = UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6)
                    target[o + 1] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                    o += 2
                } else if scalar < 0x1_0000 {
                    target[o] = UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12)
                    target[o + 1] = UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F)
                    target[o + 2] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                    o += 3
                } else {
                    target[o] = UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18)
                    target[o + 1] = UInt8(truncatingIfNeeded: 0x80 | (scalar >> 12) & 0x3F)
                    target[o + 2] = UInt8(truncatingIfNeeded: 0x80 | (scalar >> 6) & 0x3F)
                    target[o + 3] = UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F)
                    o += 4
                }
            }
            return o
        }
        return refused ? nil : string
    }

    /// The high bytes of a little-endian word's four 16-bit lanes (big-endian units 00 xx read
    /// as little-endian), packed into its four low bytes in order.
    @inline(__always)
    private static func gather(_ word: UInt64) -> UInt64 {
        var lanes = (word >> 8) & 0x00FF_00FF_00FF_00FF
        lanes = (lanes | lanes >> 8) & 0x0000_FFFF_0000_FFFF
        return (lanes | lanes >> 16) & 0xFFFF_FFFF
    }
}
