import Testing
import TerminalUI

@Suite("ScreenBuffer")
struct ScreenBufferTests {
    @Test("A new buffer is blank rows of its width, trailing spaces kept")
    func blank() throws {
        let buffer = ScreenBuffer(width: 4, height: 2)
        try buffer.assertLines(["    ", "    "])
    }

    @Test("put writes text, returns the columns used, and lines() shows wide characters once")
    func putWide() throws {
        var buffer = ScreenBuffer(width: 16, height: 2)
        let used = buffer.put("你好，wörld 👋", x: 1, y: 0)
        #expect(used == 14)
        try buffer.assertLines([" 你好，wörld 👋 ", "                "])
        #expect(buffer[x: 1, y: 0].grapheme == "你")
        #expect(buffer[x: 1, y: 0].width == 2)
        #expect(buffer[x: 2, y: 0].isContinuation)
    }

    @Test("Text clips at the right edge")
    func clipsAtEdge() throws {
        var buffer = ScreenBuffer(width: 5, height: 1)
        #expect(buffer.put("abcdefgh", x: 2, y: 0) == 3)
        try buffer.assertLines(["  abc"])
    }

    @Test("A wide character that does not fit at the edge becomes a space")
    func wideAtEdge() throws {
        var buffer = ScreenBuffer(width: 5, height: 1)
        buffer.fill("x")
        #expect(buffer.put("ab中", x: 2, y: 0) == 3)
        try buffer.assertLines(["xxab "])
        #expect(!buffer[x: 4, y: 0].isContinuation)
    }

    @Test("maxWidth limits the columns, and a wide character never straddles the limit")
    func maxWidth() throws {
        var buffer = ScreenBuffer(width: 8, height: 1)
        #expect(buffer.put("中文字", x: 0, y: 0, maxWidth: 5) == 5)
        try buffer.assertLines(["中文    "])
        #expect(buffer.put("abc", x: 6, y: 0, maxWidth: 0) == 0)
        try buffer.assertLines(["中文    "])
    }

    @Test("Overwriting the right half of a wide character blanks its left half")
    func overwriteRightHalf() throws {
        var buffer = ScreenBuffer(width: 4, height: 1)
        buffer.put("中文", x: 0, y: 0)
        buffer.put("x", x: 1, y: 0)
        try buffer.assertLines([" x文"])
        #expect(buffer[x: 0, y: 0] == .blank)
    }

    @Test("Overwriting the left half of a wide character blanks its right half")
    func overwriteLeftHalf() throws {
        var buffer = ScreenBuffer(width: 4, height: 1)
        buffer.put("中文", x: 0, y: 0)
        buffer.put("y", x: 2, y: 0)
        try buffer.assertLines(["中y "])
        #expect(!buffer[x: 3, y: 0].isContinuation)
    }

    @Test("A wide character written across two wide ones blanks both outer halves")
    func wideOverWide() throws {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.put("中文字", x: 0, y: 0)
        buffer.put("好", x: 1, y: 0)
        try buffer.assertLines([" 好 字"])
    }

    @Test("Text starting left of the buffer is clipped; a wide character cut at column 0 becomes a space")
    func negativeX() throws {
        var buffer = ScreenBuffer(width: 4, height: 1)
        #expect(buffer.put("中abc", x: -1, y: 0) == 4)
        try buffer.assertLines([" abc"])
    }

    @Test("Rows outside the buffer are ignored")
    func rowsOutside() throws {
        var buffer = ScreenBuffer(width: 3, height: 1)
        #expect(buffer.put("abc", x: 0, y: 1) == 0)
        #expect(buffer.put("abc", x: 0, y: -1) == 0)
        #expect(buffer.put("abc", x: 3, y: 0) == 0)
        try buffer.assertLines(["   "])
    }

    @Test("Control characters are stored inert, never raw")
    func sanitizesInput() throws {
        var buffer = ScreenBuffer(width: 10, height: 1)
        buffer.put("a\u{1B}[31m\u{0}\u{202E}", x: 0, y: 0)
        try buffer.assertLines(["a␛[31m␀\u{FFFD}  "])
        for cell in buffer.cells {
            #expect(!cell.grapheme.unicodeScalars.contains { TerminalSanitizer.isUnsafe($0) })
        }
        #expect(Cell("\u{1B}").grapheme == "␛")
    }

    @Test("Lone combining marks are dropped; a base with marks stays one cell")
    func combining() throws {
        var buffer = ScreenBuffer(width: 4, height: 1)
        #expect(buffer.put("\u{301}e\u{301}x", x: 0, y: 0) == 2)
        try buffer.assertLines(["e\u{301}x  "])
    }

    @Test("fill covers a clipped rectangle with a style")
    func fill() throws {
        var buffer = ScreenBuffer(width: 5, height: 3)
        buffer.fill("#", style: Style(reverse: true), x: 3, y: 1, width: 10, height: 1)
        try buffer.assertLines(["     ", "   ##", "     "])
        #expect(buffer[x: 4, y: 1].style.reverse)
        #expect(!buffer[x: 2, y: 1].style.reverse)
        buffer.fill("中", x: 0, y: 2, width: 5)
        try buffer.assertLines(["     ", "   ##", "中中 "])
    }

    @Test("Styles are kept per cell and put does not touch cells it does not reach")
    func styles() {
        var buffer = ScreenBuffer(width: 6, height: 1)
        buffer.put("ab", x: 0, y: 0, style: Style(bold: true, foreground: .red))
        buffer.put("c", x: 2, y: 0, style: .plain)
        #expect(buffer[x: 0, y: 0].style == Style(bold: true, foreground: .red))
        #expect(buffer[x: 2, y: 0].style == .plain)
        #expect(buffer[x: 3, y: 0] == .blank)
    }

    @Test("diff lists only the cells that changed, in reading order")
    func diff() {
        var old = ScreenBuffer(width: 5, height: 2)
        old.put("hello", x: 0, y: 0)
        var new = old
        new.put("J", x: 0, y: 0)
        new.put("中", x: 1, y: 1)
        let changes = new.diff(from: old)
        #expect(changes.map { [$0.x, $0.y] } == [[0, 0], [1, 1], [2, 1]])
        #expect(changes[0].cell.grapheme == "J")
        #expect(changes[1].cell.grapheme == "中")
        #expect(changes[2].cell.isContinuation)
        #expect(new.diff(from: new).isEmpty)
    }

    @Test("diff against a buffer of another size lists every cell")
    func diffResized() {
        let old = ScreenBuffer(width: 3, height: 1)
        let new = ScreenBuffer(width: 2, height: 2)
        #expect(new.diff(from: old).count == 4)
    }

    @Test("diff includes the new left half when a wide character replaces narrow ones")
    func diffWideReplacesNarrow() {
        var old = ScreenBuffer(width: 4, height: 1)
        old.put("ab", x: 0, y: 0)
        var new = old
        new.put("中", x: 1, y: 0)
        let changes = new.diff(from: old)
        #expect(changes.map(\.x) == [1, 2])
        #expect(changes.first?.cell.grapheme == "中")
    }

    @Test("resized keeps the top-left content and blanks a wide character cut by the new edge")
    func resized() throws {
        var buffer = ScreenBuffer(width: 5, height: 2)
        buffer.put("ab中", x: 0, y: 0)
        buffer.put("xyz", x: 0, y: 1)
        let smaller = buffer.resized(to: TerminalSize(width: 3, height: 1))
        try smaller.assertLines(["ab "])
        let larger = buffer.resized(to: TerminalSize(width: 6, height: 3))
        try larger.assertLines(["ab中  ", "xyz   ", "      "])
        let tiny = buffer.resized(to: TerminalSize(width: 1, height: 1))
        try tiny.assertLines(["a"])
        let empty = buffer.resized(to: TerminalSize(width: 0, height: 0))
        #expect(empty.lines().isEmpty)
    }

    @Test("Tiny and empty buffers accept writes without trapping")
    func tiny() throws {
        var one = ScreenBuffer(width: 1, height: 1)
        #expect(one.put("中", x: 0, y: 0) == 1)
        try one.assertLines([" "])
        var none = ScreenBuffer(width: 0, height: 0)
        #expect(none.put("abc", x: 0, y: 0) == 0)
        none.fill("x")
        #expect(none.lines().isEmpty)
        let negative = ScreenBuffer(width: -3, height: -1)
        #expect(negative.size == TerminalSize(width: 0, height: 0))
    }
}
