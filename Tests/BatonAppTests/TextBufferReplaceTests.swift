import Testing
@testable import BatonApp

@Suite("TextBuffer.replace")
struct TextBufferReplaceTests {
    @Test("Replaces within a line and across lines, returns what it removed, cursor after the insert")
    func replaces() {
        var buffer = TextBuffer(text: "one\ntwo 👋\nthree")
        #expect(buffer.replace(from: TextPosition(line: 1, column: 4), to: TextPosition(line: 1, column: 5), with: "é") == "👋")
        #expect(buffer.text == "one\ntwo é\nthree")
        #expect(buffer.cursor == TextPosition(line: 1, column: 5))
        #expect(buffer.replace(from: TextPosition(line: 0, column: 1), to: TextPosition(line: 2, column: 2), with: "X\nY") == "ne\ntwo é\nth")
        #expect(buffer.text == "oX\nYree")
        #expect(buffer.cursor == TextPosition(line: 1, column: 1))
    }

    @Test("Clamps positions outside the text and swaps an end before the start")
    func clampsAndSwaps() {
        var buffer = TextBuffer(text: "ab\ncd")
        #expect(buffer.replace(from: TextPosition(line: 9, column: 9), to: TextPosition(line: 0, column: -3), with: "") == "ab\ncd")
        #expect(buffer.text == "")
        #expect(buffer.cursor == TextPosition(line: 0, column: 0))
        #expect(buffer.replace(from: TextPosition(line: 0, column: 0), to: TextPosition(line: 0, column: 0), with: "z") == "")
        #expect(buffer.text == "z")
    }
}
