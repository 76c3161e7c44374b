import TerminalUI

/// Draws the editor: a title line (file name — its path when it is in another folder —,
/// `[read-only]`, `[+]` when unsaved, where it came from, the cursor's line and column) and the
/// text, scrolled so the cursor shows. A line that goes on past the right edge ends in `>` at
/// the edge, and one scrolled so that part of it is hidden on the left starts with `<`, as
/// nano's `$` marks do; no mark covers the cursor.
enum EditorView {
    /// Draws `state` and returns where the cursor goes, nil when there is no text area.
    ///
    /// With a `memo`, a line drawn the same way in the last frame is copied from it.
    static func draw(
        _ state: EditorState, layout: ScreenLayout, into frame: inout ScreenBuffer, memo: ViewMemo? = nil
    ) -> CursorPosition? {
        if let row = layout.titleRow {
            drawTitle(state, row: row, into: &frame)
        }
        let width = layout.contentWidth
        let height = layout.contentHeight
        guard width > 0, height > 0 else { return nil }
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
            let text = buffer.lineText(index)
            let start = { buffer.drawStart(ofLine: index, left: scroll.left) }
            let cut = memo?.drawLine(text, left: scroll.left, y: y, width: width, into: &frame, start: start)
                ?? frame.drawScrolled(text, from: scroll.left, start: start(), x: 0, y: y, width: width)
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
            let line = buffer.line(index)
            let from = index == selection.start.line ? TextBuffer.displayWidth(line.prefix(selection.start.column)) : 0
            let to = index == selection.end.line
                ? TextBuffer.displayWidth(line.prefix(selection.end.column)) : TextBuffer.displayWidth(line) + 1
            let y = top + index - scroll.top
            let lower = max(0, from - scroll.left)
            let upper = min(width, to - scroll.left)
            guard lower < upper else { continue }
            for x in lower..<upper {
                var cell = frame[x: x, y: y]
                cell.style.reverse.toggle()
                _ = frame.put(cell, x: x, y: y)
            }
        }
    }

    /// How the edge marks are drawn.
    static let edgeMark = Style(reverse: true)

    /// The title: " notes.txt [+] — from bob@desk" on the left, "Ln 1, Col 11 " on the right
    /// when there is room, in reverse video.
    static func drawTitle(_ state: EditorState, row: Int, into frame: inout ScreenBuffer) {
        let style = Style(reverse: true)
        frame.clearRow(row, style: style)
        var marks = ""
        if state.isReadOnly { marks += " [read-only]" }
        if state.isDirty { marks += " [+]" }
        if let peer = state.continuedFrom { marks += " — from \(peer)" }
        let cursor = state.buffer.cursor
        let right = "Ln \(cursor.line + 1), Col \(cursor.column + 1) "
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
            frame.put(right, x: width - right.columns, y: row, style: style)
        } else {
            frame.putTruncated(left, x: 0, y: row, width: width, style: style)
        }
    }
}
