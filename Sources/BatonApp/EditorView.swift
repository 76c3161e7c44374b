import TerminalUI

/// Draws the editor: a title line (file name — its path when it is in another folder —,
/// `[read-only]`, `[+]` when unsaved, where it came from, and with Alt-C the cursor's line and
/// column) and the text, scrolled so the cursor shows. A line that goes on past the right edge
/// ends in `>` at the edge, and one scrolled so that part of it is hidden on the left starts
/// with `<`, as nano's `$` marks do; no mark covers the cursor.
enum EditorView {
    /// Draws `state` and returns where the cursor goes, nil when there is no text area.
    ///
    /// With a `memo`, a line drawn the same way in the last frame is copied from it.
    static func draw(
        _ state: EditorState, layout: ScreenLayout, into frame: inout ScreenBuffer, memo: ViewMemo? = nil
    ) -> CursorPosition? {
        if let row = layout.titleRow {
            if let memo {
                memo.drawTitle(TitleKey(state, width: frame.width), y: row, into: &frame) {
                    drawTitle(state, row: row, into: &$0)
                }
            } else {
                drawTitle(state, row: row, into: &frame)
            }
        }
        let width = layout.contentWidth
        let height = layout.contentHeight
        guard width > 0, height > 0 else { return nil }
        let colouring = SyntaxColouring.make(for: state, memo: memo?.syntax)
        if state.display.lineNumbers || state.display.softWrap {
            // Rows with numbers or wrapped lines are not the memo's: they are drawn on blank rows.
            memo?.sweep(&frame)
            return drawDecorated(state, layout: layout, colouring: colouring, into: &frame)
        }
        let buffer = state.buffer
        let cursorColumns = buffer.cursorColumns
        let scroll = state.scrollShowingCursor(width: width, height: height, cursorColumns: cursorColumns)
        let cursor = CursorPosition(
            x: cursorColumns.start - scroll.left,
            y: layout.contentTop + buffer.cursor.line - scroll.top)
        for row in 0..<height {
            let index = scroll.top + row
            guard index < buffer.lineCount else { break }
            let y = layout.contentTop + row
            let start = { buffer.drawStart(ofLine: index, left: scroll.left) }
            let cut: (left: Bool, right: Bool)
            if let memo {
                // The colours go into the row the memo keeps: a row drawn the same way last
                // frame (same text, same region) is copied with them, found by the line's bytes
                // where they lie; only a line it does not have is cut out as a `String`.
                let kept = buffer.withLineBytes(index) { bytes in
                    memo.reuseLine(
                        bytes, left: scroll.left, y: y, width: width,
                        colouring: colouring?.rowKey(line: index, bytes: bytes.count, buffer: buffer) ?? 0, into: &frame)
                }
                if let kept {
                    cut = kept
                } else {
                    let text = buffer.lineText(index)
                    let row = colouring?.row(line: index, text: text, buffer: buffer)
                    cut = memo.drawLine(
                        text, left: scroll.left, y: y, width: width, into: &frame, start: start, colouring: row?.key ?? 0,
                        lookUp: false
                    ) { frame in
                        if let row { colouring?.paint(row, left: scroll.left, x: 0, y: y, width: width, into: &frame) }
                    }
                }
            } else {
                let text = buffer.lineText(index)
                cut = frame.drawScrolled(text, from: scroll.left, start: start(), x: 0, y: y, width: width)
                if let row = colouring?.row(line: index, text: text, buffer: buffer) {
                    colouring?.paint(row, left: scroll.left, x: 0, y: y, width: width, into: &frame)
                }
            }
            if cut.right, width > 1, cursor != CursorPosition(x: width - 1, y: y) {
                frame.put(">", x: width - 1, y: y, style: edgeMark)
            }
            if cut.left, width > 1, cursor != CursorPosition(x: 0, y: y) {
                frame.put("<", x: 0, y: y, style: edgeMark)
            }
        }
        if let selection = state.selection {
            highlight(selection, buffer: buffer, scroll: scroll, top: layout.contentTop, width: width, height: height, into: &frame)
        }
        return cursor
    }

    /// Shows the selection (or the match a replace asks about) in reverse video, over the
    /// lines as drawn; a line break inside it shows as one reversed cell, as in nano.
    static func highlight(
        _ selection: (start: TextPosition, end: TextPosition), buffer: TextBuffer, scroll: ScrollOffset, top: Int,
        width: Int, height: Int, into frame: inout ScreenBuffer
    ) {
        let first = max(selection.start.line, scroll.top)
        let last = min(selection.end.line, scroll.top + height - 1, buffer.lineCount - 1)
        guard first <= last else { return }
        for index in first...last {
            highlight(selection, line: index, buffer: buffer, left: scroll.left, x: 0, y: top + index - scroll.top,
                width: width, into: &frame)
        }
    }

    /// `highlight` for one row: line `index` seen from display column `left`, drawn at (`x`, `y`).
    static func highlight(
        _ selection: (start: TextPosition, end: TextPosition), line index: Int, buffer: TextBuffer, left: Int, x: Int,
        y: Int, width: Int, into frame: inout ScreenBuffer
    ) {
        let line = buffer.line(index)
        let from = index == selection.start.line ? TextBuffer.displayWidth(line.prefix(selection.start.column)) : 0
        let to = index == selection.end.line
            ? TextBuffer.displayWidth(line.prefix(selection.end.column)) : TextBuffer.displayWidth(line) + 1
        let lower = max(0, from - left)
        let upper = min(width, to - left)
        guard lower < upper else { return }
        for column in lower..<upper {
            var cell = frame[x: x + column, y: y]
            cell.style.reverse.toggle()
            _ = frame.put(cell, x: x + column, y: y)
        }
    }

    /// One row of the text area: line `line` seen from display column `left`, at row `y`.
    struct VisualRow {
        let line: Int
        let left: Int
        let y: Int
        /// Whether this is the line's first row (its number is drawn there).
        let isFirst: Bool
    }

    /// The rows the text area shows, top down: one per line scrolled sideways by `scroll.left`,
    /// or with soft wrap as many per line as it needs in `textWidth` columns.
    static func visualRows(
        _ state: EditorState, scroll: ScrollOffset, top: Int, textWidth: Int, height: Int
    ) -> [VisualRow] {
        var rows: [VisualRow] = []
        var line = scroll.top
        var row = state.display.softWrap ? scroll.topRow : 0
        while rows.count < height, line < state.buffer.lineCount {
            if state.display.softWrap {
                let count = state.wrappedRows(ofLine: line, textWidth: textWidth)
                while row < count, rows.count < height {
                    rows.append(VisualRow(line: line, left: row * textWidth, y: top + rows.count, isFirst: row == 0))
                    row += 1
                }
                row = 0
            } else {
                rows.append(VisualRow(line: line, left: scroll.left, y: top + rows.count, isFirst: true))
            }
            line += 1
        }
        return rows
    }

    /// Draws the text with line numbers in a gutter, or soft-wrapped, or both; returns the cursor.
    static func drawDecorated(
        _ state: EditorState, layout: ScreenLayout, colouring: SyntaxColouring?, into frame: inout ScreenBuffer
    ) -> CursorPosition? {
        let areaWidth = layout.contentWidth
        let height = layout.contentHeight
        let gutter = state.gutterWidth(areaWidth: areaWidth)
        let width = areaWidth - gutter
        let buffer = state.buffer
        let cursorColumns = buffer.cursorColumns
        let scroll = state.scrollShowingCursor(width: areaWidth, height: height, cursorColumns: cursorColumns)
        let rows = visualRows(state, scroll: scroll, top: layout.contentTop, textWidth: width, height: height)
        let digits = max(0, gutter - 1)
        var cursor: CursorPosition?
        let selection = state.selection
        for row in rows {
            if gutter > 0 && row.isFirst {
                let number = String(row.line + 1)
                frame.put(
                    String(repeating: " ", count: max(0, digits - number.count)) + number, x: 0, y: row.y, style: gutterStyle)
            }
            let text = buffer.lineText(row.line)
            let cut = frame.drawScrolled(
                text, from: row.left, start: buffer.drawStart(ofLine: row.line, left: row.left), x: gutter, y: row.y,
                width: width)
            if let coloured = colouring?.row(line: row.line, text: text, buffer: buffer) {
                colouring?.paint(coloured, left: row.left, x: gutter, y: row.y, width: width, into: &frame)
            }
            if row.line == buffer.cursor.line, cursorColumns.start >= row.left,
               cursorColumns.start < row.left + width || (!state.display.softWrap && cursorColumns.start == row.left + width) {
                cursor = CursorPosition(x: gutter + cursorColumns.start - row.left, y: row.y)
            }
            if !state.display.softWrap {
                if cut.right, width > 1, cursor != CursorPosition(x: gutter + width - 1, y: row.y) {
                    frame.put(">", x: gutter + width - 1, y: row.y, style: edgeMark)
                }
                if cut.left, width > 1, cursor != CursorPosition(x: gutter, y: row.y) {
                    frame.put("<", x: gutter, y: row.y, style: edgeMark)
                }
            }
            if let selection, row.line >= selection.start.line, row.line <= selection.end.line {
                highlight(
                    selection, line: row.line, buffer: buffer, left: row.left, x: gutter, y: row.y, width: width,
                    into: &frame)
            }
        }
        return cursor
    }

    /// How line numbers are drawn.
    static let gutterStyle = Style(dim: true)

    /// How the edge marks are drawn.
    static let edgeMark = Style(reverse: true)

    /// Everything `drawTitle` draws from: two frames with equal keys have the same title row.
    struct TitleKey: Equatable {
        let name: String?
        let fileName: String?
        let isReadOnly: Bool
        let isDirty: Bool
        let continuedFrom: String?
        /// The cursor, when the title shows it.
        let position: TextPosition?
        let width: Int

        init(_ state: EditorState, width: Int) {
            name = state.titleName
            fileName = state.fileName
            isReadOnly = state.isReadOnly
            isDirty = state.isDirty
            continuedFrom = state.continuedFrom
            position = state.display.constantShow ? state.buffer.cursor : nil
            self.width = width
        }
    }

    /// The title: " notes.txt [+] — from bob@desk" on the left and, when the display asks for it
    /// (`constantShow`), "Ln 1, Col 11 " on the right when there is room, in reverse video.
    static func drawTitle(_ state: EditorState, row: Int, into frame: inout ScreenBuffer) {
        let style = Style(reverse: true)
        frame.clearRow(row, style: style)
        var marks = ""
        if state.isReadOnly { marks += " [read-only]" }
        if state.isDirty { marks += " [+]" }
        if let peer = state.continuedFrom { marks += " — from \(peer)" }
        let cursor = state.buffer.cursor
        let right = state.display.constantShow ? "Ln \(cursor.line + 1), Col \(cursor.column + 1) " : ""
        let width = frame.width
        var name = state.titleName ?? "(unnamed)"
        if let baseName = state.fileName, name != baseName, 1 + name.columns + marks.columns + 2 + right.columns > width {
            // A path too long for the title keeps its end, where the file name is.
            let room = width - 1 - marks.columns - 2 - right.columns
            name = name.truncatedFromLeft(toColumns: max(room, baseName.columns + 2))
        }
        let left = " " + name + marks
        if left.columns + 2 + right.columns <= width {
            frame.put(left, x: 0, y: row, style: style)
            if !right.isEmpty { frame.put(right, x: width - right.columns, y: row, style: style) }
        } else {
            frame.putTruncated(left, x: 0, y: row, width: width, style: style)
        }
    }
}
