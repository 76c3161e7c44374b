import Testing
import TerminalUI

@Suite("ScreenBuffer spans and row comparison")
struct ScreenBufferSpanTests {
    @Test("A row taken with span and put back in another buffer draws the same cells, wide ones whole")
    func spanRoundTrip() throws {
        var source = ScreenBuffer(width: 10, height: 2)
        source.put("a中b👋🏽c", x: 0, y: 1, style: Style(bold: true))
        let row = source.span(x: 0, y: 1, count: 10)
        #expect(row.count == 10)
        var target = ScreenBuffer(width: 10, height: 3)
        let wholeRow = target.put(span: row, x: 0, y: 2)
        #expect(wholeRow)
        try target.assertLines(["          ", "          ", "a中b👋🏽c   "])
        #expect(target[x: 1, y: 2] == source[x: 1, y: 1])
        #expect(target[x: 2, y: 2].isContinuation)
        #expect(target.diff(from: target).isEmpty)
    }

    @Test("Part of a row goes back cell by cell; a span that starts inside a wide grapheme or does not fit writes nothing")
    func partialSpans() throws {
        var source = ScreenBuffer(width: 8, height: 1)
        source.put("中文ab", x: 0, y: 0)
        var target = ScreenBuffer(width: 8, height: 1)
        target.put("xxxxxxxx", x: 0, y: 0)
        // From the continuation of 中: refused.
        let fromContinuation = target.put(span: source.span(x: 1, y: 0, count: 3), x: 0, y: 0)
        #expect(!fromContinuation)
        // Six cells at column 4 of eight: refused.
        let pastEdge = target.put(span: source.span(x: 0, y: 0, count: 6), x: 4, y: 0)
        #expect(!pastEdge)
        try target.assertLines(["xxxxxxxx"])
        // 文 and "ab" at column 3: written, and the x before them kept.
        let inside = target.put(span: source.span(x: 2, y: 0, count: 4), x: 3, y: 0)
        #expect(inside)
        try target.assertLines(["xxx文abx"])
        // Spans are clipped to the row.
        #expect(source.span(x: 6, y: 0, count: 10).count == 2)
        #expect(source.span(x: 0, y: 5, count: 3).isEmpty)
    }

    @Test("diff skips rows that hold the same cells and still finds a change beside them")
    func diffSkipsEqualRows() {
        var old = ScreenBuffer(width: 6, height: 3)
        old.put("same 1", x: 0, y: 0)
        old.put("👨‍👩‍👧 a", x: 0, y: 1)
        old.put("same 3", x: 0, y: 2)
        var new = old
        new.put("b", x: 3, y: 1)
        let changes = new.diff(from: old)
        #expect(changes.map { [$0.x, $0.y] } == [[3, 1]])
        #expect(changes.first?.cell.grapheme == "b")
        // The same cells made apart (not copied): equal, so no change either.
        var again = ScreenBuffer(width: 6, height: 3)
        again.put("same 1", x: 0, y: 0)
        again.put("👨‍👩‍👧 a", x: 0, y: 1)
        again.put("same 3", x: 0, y: 2)
        #expect(again.diff(from: old).isEmpty)
    }
}
