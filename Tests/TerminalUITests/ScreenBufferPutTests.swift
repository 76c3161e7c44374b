import Testing
@testable import TerminalUI

/// `put` takes runs of one-column scalars without making characters of them; what it draws must
/// be what drawing the text a character at a time draws, around any other character.
@Suite("Putting text: the one-column runs and the characters between them")
struct ScreenBufferPutTests {
    /// The text put a character at a time, as `put` did before it took one-column runs whole.
    static func reference(_ text: String, x: Int, maxWidth: Int?, into frame: inout ScreenBuffer) -> Int {
        let limit = maxWidth.map { min(max(x + $0, 0), frame.width) } ?? frame.width
        var column = x
        for character in text.sanitizedForTerminal {
            guard column < limit else { break }
            var cell: Cell
            if let plain = Cell.plain(character) {
                cell = plain
            } else {
                if character.terminalColumns == 0 { continue }
                cell = Cell(character)
            }
            if column + cell.width > limit {
                if column >= 0 { _ = frame.put(.blank, x: column, y: 0); column += 1 }
                break
            }
            if column < 0 {
                if column + cell.width > 0 { _ = frame.put(.blank, x: 0, y: 0) }
                column += cell.width
                continue
            }
            _ = frame.put(cell, x: column, y: 0)
            column += cell.width
        }
        return max(0, column - max(x, 0))
    }

    static let pieces = [
        "a", "Z", " ", "·", "é", "e\u{301}", "a\u{308}\u{301}", "—", "↪", "⚠", "中", "👋🏽", "🇫🇷", "ʰ", "ñ",
        "\u{AD}", "\u{200D}", "\u{FE0F}", "\u{7}", "\u{1B}", "\u{301}", "Ctrl-N", "ÿ", "ɐ", "\u{2FF}", "\u{300}",
    ]

    @Test("Texts of one-column runs, marks, wide, joined and unsafe characters draw as a character at a time does, at every offset and limit")
    func sameAsCharacterAtATime() {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator)! }.joined()
            let x = Int.random(in: -3...6, using: &generator)
            let maxWidth: Int? = Bool.random(using: &generator) ? nil : Int.random(in: 0...14, using: &generator)
            var drawn = ScreenBuffer(width: 16, height: 1)
            var expected = ScreenBuffer(width: 16, height: 1)
            let used = drawn.put(text, x: x, y: 0, maxWidth: maxWidth)
            let expectedUsed = Self.reference(text, x: x, maxWidth: maxWidth, into: &expected)
            #expect(drawn == expected && used == expectedUsed, "\(text.unicodeScalars.map { String($0.value, radix: 16) }) at \(x), max \(String(describing: maxWidth))")
            checked += 1
        }
        #expect(checked == 3_000)
    }

    @Test("Over a row of wide and narrow characters, text and a fill draw as a cell at a time does")
    func overWideCharacters() {
        var generator = SystemRandomNumberGenerator()
        let under = ["中", "文", "👋🏽", "a", " ", "é"]
        let narrow = ["a", "Z", " ", "x", "-"]
        var checked = 0
        for _ in 0..<3_000 {
            // The same row under both: wide characters at every parity, drawn a cell at a time.
            var drawn = ScreenBuffer(width: 16, height: 2)
            let row = (0..<Int.random(in: 0...12, using: &generator)).map { _ in under.randomElement(using: &generator)! }.joined()
            _ = Self.reference(row, x: Int.random(in: 0...1, using: &generator), maxWidth: nil, into: &drawn)
            var expected = drawn
            let x = Int.random(in: 0...17, using: &generator)
            if Bool.random(using: &generator) {
                // One-column text: `put`'s run through one pointer.
                let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in narrow.randomElement(using: &generator)! }.joined()
                let maxWidth: Int? = Bool.random(using: &generator) ? nil : Int.random(in: 0...10, using: &generator)
                let used = drawn.put(text, x: x, y: 0, maxWidth: maxWidth)
                let expectedUsed = Self.reference(text, x: x, maxWidth: maxWidth, into: &expected)
                #expect(drawn == expected && used == expectedUsed, "\(text) at \(x) over \(row)")
            } else {
                // A fill of a one-column character: a cell at a time through `put(_:x:y:)`.
                let width = Int.random(in: 0...17, using: &generator)
                let style = Style(reverse: true)
                drawn.fill("-", style: style, x: x, y: 0, width: width, height: 1)
                for column in x..<max(x, min(x + width, 16)) { _ = expected.put(Cell("-", style: style), x: column, y: 0) }
                #expect(drawn == expected, "fill of \(width) at \(x) over \(row)")
            }
            checked += 1
        }
        #expect(checked == 3_000)
    }

    @Test("A hint with symbols between its one-column runs draws whole")
    func hintWithSymbols() {
        var frame = ScreenBuffer(width: 60, height: 1)
        let text = "↪ Editing notes.txt — bob@desk, 3s ago · Ctrl-N to continue"
        #expect(frame.put(text, x: 0, y: 0) == 59)
        #expect(frame.lines() == [text + " "])
    }
}
