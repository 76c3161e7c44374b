import Testing
import TerminalUI
@testable import BatonApp

@Suite("TextBuffer")
struct TextBufferTests {
    @Test("Text splits at \\n only: a \\r is a character of its line, also before \\n")
    func lineBreaks() {
        let buffer = TextBuffer(text: "a\r\nb\rc\nd")
        #expect(buffer.lineCount == 3)
        #expect(buffer.line(0) == ["a", "\r"])
        #expect(buffer.line(1) == ["b", "\r", "c"])
        #expect(buffer.line(2) == ["d"])
        #expect(buffer.text == "a\r\nb\rc\nd")
        #expect(TextBuffer().isEmpty)
        #expect(TextBuffer().lineCount == 1)
    }

    @Test("Inserting several lines leaves the cursor after the last one")
    func multilineInsert() {
        var buffer = TextBuffer(text: "[]", cursor: TextPosition(line: 0, column: 1))
        buffer.insert("one\ntwo\nthree")
        #expect(buffer.text == "[one\ntwo\nthree]")
        #expect(buffer.cursor == TextPosition(line: 2, column: 5))
    }

    @Test("Regional indicators typed one by one become one flag")
    func flags() {
        var buffer = TextBuffer()
        buffer.insert("\u{1F1FA}")
        buffer.insert("\u{1F1F8}")
        #expect(buffer.currentLine == ["🇺🇸"])
        #expect(buffer.cursor.column == 1)
        #expect(buffer.cursorDisplayColumn == 2)
    }

    @Test("A lone combining mark joins the letter a join or an insert puts before it")
    func resegmentation() {
        var buffer = TextBuffer(text: "o\n\u{308}", cursor: TextPosition(line: 1, column: 0))
        #expect(buffer.line(1).count == 1)
        buffer.backspace()
        #expect(buffer.lineCount == 1)
        #expect(buffer.line(0) == ["o\u{308}"])
        #expect(buffer.cursor == TextPosition(line: 0, column: 1))
        var other = TextBuffer(text: "\u{308}")
        other.insert("y")
        #expect(other.line(0) == ["y\u{308}"])
        #expect(other.cursor == TextPosition(line: 0, column: 1))
    }

    @Test("Display widths: wide characters 2, tabs to the next stop, control characters as their 1-column picture")
    func widths() {
        #expect(TextBuffer.displayWidth("你好，wörld 👋") == 14)
        #expect(TextBuffer.displayWidth("a\tb") == 5)
        #expect(TextBuffer.displayWidth("abcd\t") == 8)
        #expect(TextBuffer.displayWidth("\u{1B}x") == 2)
        #expect(TextBuffer.column(in: Array("a中b"), atDisplayColumn: 2) == 1)
        #expect(TextBuffer.column(in: Array("a中b"), atDisplayColumn: 3) == 2)
        #expect(TextBuffer.column(in: Array("a\tb"), atDisplayColumn: 3) == 1)
    }

    @Test("Vertical moves of any size stay inside the text")
    func bigMoves() {
        var buffer = TextBuffer(text: "a\nb\nc", cursor: TextPosition(line: 1, column: 0))
        buffer.moveDown(by: .max)
        #expect(buffer.cursor.line == 2)
        buffer.moveUp(by: .max)
        #expect(buffer.cursor.line == 0)
    }

    @Test("The width of the character under the cursor")
    func cursorCharacterWidth() {
        var buffer = TextBuffer(text: "a中\t")
        #expect(buffer.cursorCharacterWidth == 1)
        buffer.moveRight()
        #expect(buffer.cursorCharacterWidth == 2)
        buffer.moveRight()
        #expect(buffer.cursorCharacterWidth == 1)  // the tab from column 3 to 4
        buffer.moveRight()
        #expect(buffer.cursorCharacterWidth == 1)  // end of line
    }

    @Test("The cursor's columns are what measuring each character before it gives, also beside marks, tabs and wide characters")
    func cursorColumnsAgainstCharacters() {
        // Plain lines, and lines where a mark, tab, wide or control character comes right after
        // the cursor's character or anywhere before it.
        let lines = [
            "", "a", "plain ASCII words", "e\u{301}", "ae\u{301}b", "ab\u{301}", "tab\there", "\tx",
            "x中y", "中", "cr\rhere", "del\u{7F}x", "👍🏽 ok", "ok 👨‍👩‍👧", "a\u{200D}b", "~ end ~",
        ]
        var checked = 0
        for text in lines {
            let characters = Array(text)
            for column in 0...characters.count {
                let buffer = TextBuffer(text: text, cursor: TextPosition(line: 0, column: column))
                var start = 0
                for character in characters[..<column] { start = TextBuffer.advance(from: start, over: character) }
                let width = column < characters.count ? max(1, TextBuffer.advance(from: start, over: characters[column]) - start) : 1
                #expect(buffer.cursorColumns == (start, width), "\(text.debugDescription) at \(column)")
                checked += 1
            }
        }
        #expect(checked >= 80)
    }
}
