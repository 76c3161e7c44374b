import Testing
@testable import PropertyList

/// The one-pass UTF-16BE transcoding the plist writer and reader use for long texts.
@Suite("UTF-16BE transcoding")
struct UTF16BigEndianTests {
    static let samples = ["", "a", "héllo", "你好", "👋", "a👋b", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}", "Grüße 🇩🇪 नमस्ते"]

    @Test("Every sample round-trips and matches the standard library's UTF-16", arguments: samples)
    func roundTrip(_ text: String) {
        var string = text
        let encoded = string.withUTF8 { utf8 in
            var out: [UInt8] = []
            UTF16BigEndian.append(utf8, to: &out)
            #expect(UTF16BigEndian.unitCount(utf8) * 2 == out.count)
            return out
        }
        let expected = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        #expect(encoded == expected)
        let decoded = encoded.withUnsafeBufferPointer { UTF16BigEndian.decode($0, 0..<encoded.count) }
        #expect(decoded == text)
    }

    @Test("Random scalars from every plane round-trip")
    func randomScalars() {
        var random = PlistTestRandom(seed: 8)
        for _ in 0..<200 {
            var text = ""
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x1_0000...0x10_FFFF]
                let range = ranges[Int.random(in: 0..<ranges.count, using: &random)]
                text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: range, using: &random))!)
            }
            var string = text
            let encoded = string.withUTF8 { utf8 in
                var out: [UInt8] = []
                UTF16BigEndian.append(utf8, to: &out)
                return out
            }
            #expect(encoded.withUnsafeBufferPointer { UTF16BigEndian.decode($0, 0..<encoded.count) } == text)
        }
    }

    @Test("Runs of ASCII around other scalars, at every offset, match the standard library's UTF-16")
    func asciiRuns() {
        // The transcoders take eight ASCII bytes at a time: a scalar of each length placed at
        // each offset of runs up to 40 bytes long, so every lane of a word meets one.
        let others: [String] = ["é", "你", "👋", "\u{10FFFF}", "\u{80}", "\u{0}"]
        var checked = 0
        for other in others {
            for before in 0...17 {
                for after in [0, 1, 7, 8, 9, 23] {
                    let text = String(repeating: "abcdefgh", count: 5).prefix(before) + other + String(repeating: "xyz", count: 8).prefix(after)
                    var string = String(text)
                    let encoded = string.withUTF8 { utf8 in
                        var out: [UInt8] = [0xEE]  // appends after what is there
                        UTF16BigEndian.append(utf8, to: &out)
                        #expect(UTF16BigEndian.unitCount(utf8) == text.utf16.count)
                        #expect(UTF16BigEndian.isASCII(utf8) == text.utf8.allSatisfy { $0 < 0x80 })
                        return Array(out.dropFirst())
                    }
                    #expect(encoded == text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }, "\(before) \(other) \(after)")
                    #expect(encoded.withUnsafeBufferPointer { UTF16BigEndian.decode($0, 0..<encoded.count) } == String(text))
                    checked += 1
                }
            }
        }
        #expect(checked == 6 * 18 * 6)
    }

    @Test("Long ASCII texts decode from an offset that is not a word's")
    func asciiDecodeAtOddOffsets() {
        let text = String(repeating: "The quick brown fox jumps. ", count: 9)
        let units: [UInt8] = [0x12] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + [0x34]
        #expect(units.withUnsafeBufferPointer { UTF16BigEndian.decode($0, 1..<(units.count - 1)) } == text)
        var string = text
        #expect(string.withUTF8 { UTF16BigEndian.isASCII($0) })
    }

    @Test("Unpaired, reversed or cut surrogates are refused, never repaired")
    func badSurrogates() {
        let bad: [[UInt8]] = [[0xD8, 0x3D], [0xDC, 0x4B], [0xDC, 0x4B, 0xD8, 0x3D], [0xD8, 0x3D, 0x00, 0x61], [0x00, 0x61, 0xD8, 0x3D]]
        for bytes in bad {
            #expect(bytes.withUnsafeBufferPointer { UTF16BigEndian.decode($0, 0..<bytes.count) } == nil, "\(bytes)")
        }
    }
}
