import Foundation

/// Deterministic text for the large-state tests: lines of ASCII, accented Latin (precomposed and
/// combining), Greek, Cyrillic, CJK, Hangul and emoji (with skin tones, a ZWJ family and a flag),
/// some empty, ending in a newline — what a person's notes in several languages look like.
enum MixedText {
    private static let pieces = [
        "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Baton", "handoff", "state", "0123456789",
        "café", "naïve", "façade", "Ångström", "Straße", "crème brûlée", "e\u{301}te\u{301}", "Øresund", "ñandú",
        "Καλημέρα", "κόσμε", "Привет", "мир", "你好", "世界", "日本語のテキスト", "漢字", "한국어", "안녕하세요",
        "👋", "😀", "🎉", "👍🏽", "👨‍👩‍👧", "🇫🇷", "✓", "—", "…", "€", "½",
    ]

    /// Text of about `bytes` UTF-8 bytes (whole lines, so up to one line more), the same for the same `seed`.
    /// The first line is `first`.
    static func make(bytes: Int, seed: UInt64, first: String) -> String {
        var generator = SplitMix(state: seed)
        var lines = [first]
        var size = first.utf8.count + 1
        while size < bytes {
            let words = Int(generator.next() % 12)  // 0: an empty line now and then
            var line: [String] = []
            for _ in 0..<words { line.append(pieces[Int(generator.next() % UInt64(pieces.count))]) }
            let text = line.joined(separator: " ")
            lines.append(text)
            size += text.utf8.count + 1
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ASCII text of exactly `bytes` bytes in lines of at most 72 characters, ending in a newline
    /// (a binary plist stores it one byte a character, so 16,000,000 bytes stays under 16 MiB encoded).
    static func ascii(bytes: Int, first: String) -> String {
        precondition(bytes > first.utf8.count + 2)
        var text = first + "\n"
        text.reserveCapacity(bytes)
        let line = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod\n"
        while text.utf8.count + line.utf8.count < bytes { text += line }
        let rest = bytes - text.utf8.count
        text += String(repeating: "x", count: rest - 1) + "\n"
        return text
    }

    /// SplitMix64: a small, fixed generator, so a seed gives the same text on every machine.
    private struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
