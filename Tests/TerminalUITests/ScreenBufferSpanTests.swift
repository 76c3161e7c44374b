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

    @Test("A numbered row loses its number at any write to it, and rows numbered alike are passed over by the diff")
    func rowStamps() {
        let writes: [(String, (inout ScreenBuffer) -> Void)] = [
            ("put text", { $0.put("x", x: 3, y: 1) }),
            ("put text with a wide grapheme", { $0.put("中", x: 0, y: 1) }),
            ("put a cell", { $0.put(Cell("y"), x: 5, y: 1) }),
            ("put a span", { $0.put(span: ScreenBuffer(width: 8, height: 1).span(x: 0, y: 0, count: 2), x: 1, y: 1) }),
            ("fill", { $0.fill("z", x: 2, y: 1, width: 1, height: 1) }),
            ("clear", { $0.clear() }),
        ]
        for (what, write) in writes {
            var frame = ScreenBuffer(width: 8, height: 3)
            frame.put("numbered", x: 0, y: 1)
            frame.stamp(row: 1, as: 7)
            frame.stamp(row: 2, as: 8)
            #expect(frame.rowStamps == [0, 7, 8], "\(what)")
            let before = frame
            write(&frame)
            #expect(frame.rowStamps[1] == 0, "\(what) clears the row's number")
            // The changed row is found although the old one bore the number too.
            var rebuilt = before
            for change in frame.diff(from: before) { rebuilt.put(change.cell, x: change.x, y: change.y) }
            #expect(rebuilt == frame, "\(what)")
        }
        // Rows numbered alike are not compared: a (wrong) number on a changed row hides it.
        var old = ScreenBuffer(width: 4, height: 2)
        old.stamp(row: 0, as: 9)
        var new = ScreenBuffer(width: 4, height: 2)
        new.put("ab", x: 0, y: 0)
        new.stamp(row: 0, as: 9)
        #expect(new.diff(from: old).isEmpty)
        new.stamp(row: 0, as: 10)
        #expect(new.diff(from: old).map(\.x) == [0, 1])
        // The numbers are not content: equal cells are equal buffers.
        #expect(new == { var copy = new; copy.stamp(row: 0, as: 11); return copy }())
    }
}

