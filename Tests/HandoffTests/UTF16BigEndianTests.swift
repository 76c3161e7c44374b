import Testing
@testable import Handoff
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
        var random = SplitMix64(seed: 8)
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

    @Test("Unpaired, reversed or cut surrogates are refused, never repaired")
    func badSurrogates() {
        let bad: [[UInt8]] = [[0xD8, 0x3D], [0xDC, 0x4B], [0xDC, 0x4B, 0xD8, 0x3D], [0xD8, 0x3D, 0x00, 0x61], [0x00, 0x61, 0xD8, 0x3D]]
        for bytes in bad {
            #expect(bytes.withUnsafeBufferPointer { UTF16BigEndian.decode($0, 0..<bytes.count) } == nil, "\(bytes)")
        }
    }
}
