import Testing
@testable import BatonApp

/// `columns` counts runs of one-column scalars without making characters of them; the count must
/// be what measuring the text a character at a time gives, around any other character.
@Suite("Measuring text: the one-column runs and the characters between them")
struct StringColumnsTests {
    static let pieces = [
        "a", " ", "·", "é", "e\u{301}", "—", "↪", "⚠", "中", "👋🏽", "🇫🇷", "ʰ", "\u{AD}", "\u{200D}", "\u{FE0F}",
        "\u{7}", "\t", "\u{301}", "\u{2FF}", "\u{300}", "Ctrl-N", "👨‍👩‍👧‍👦", "\u{1100}\u{1161}",
    ]

    @Test("Texts of one-column runs, marks, wide, joined, control and unsafe characters measure as a character at a time does")
    func sameAsCharacterAtATime() {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            let expected = text.reduce(0) { $0 + TextBuffer.columns(of: $1) }
            #expect(text.columns == expected, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
            checked += 1
        }
        #expect(checked == 3_000)
        #expect("↪ Editing notes.txt — bob@desk, 3s ago · Ctrl-N to continue".columns == 59)
    }
}
