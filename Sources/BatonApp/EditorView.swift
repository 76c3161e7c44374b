import TerminalUI

/// Draws the editor: a title line (file name, `[+]` when unsaved, where it came from, the
/// cursor's line and column) and the text, scrolled so the cursor shows.
enum EditorView {
    /// Draws `state` and returns where the cursor goes, nil when there is no text area.
    static func draw(_ state: EditorState, layout: ScreenLayout, into frame: inout ScreenBuffer) -> CursorPosition? {
        if let row = layout.titleRow {
            drawTitle(state, row: row, into: &frame)
        }
        let width = layout.contentWidth
        let height = layout.contentHeight
        guard width > 0, height > 0 else { return nil }
        let scroll = state.scrollShowingCursor(width: width, height: height)
        let buffer = state.buffer
        for row in 0..<height {
            let index = scroll.top + row
            guard index < buffer.lineCount else { break }
            frame.drawScrolled(buffer.line(index), from: scroll.left, x: 0, y: layout.contentTop + row, width: width)
        }
        return CursorPosition(
            x: buffer.cursorDisplayColumn - scroll.left,
            y: layout.contentTop + buffer.cursor.line - scroll.top)
    }

    /// The title: " notes.txt [+] — from bob@desk" on the left, "Ln 1, Col 11 " on the right
    /// when there is room, in reverse video.
    static func drawTitle(_ state: EditorState, row: Int, into frame: inout ScreenBuffer) {
        let style = Style(reverse: true)
        frame.clearRow(row, style: style)
        var left = " " + (state.fileName ?? "(unnamed)")
        if state.isDirty { left += " [+]" }
        if let peer = state.continuedFrom { left += " — from \(peer)" }
        let cursor = state.buffer.cursor
        let right = "Ln \(cursor.line + 1), Col \(cursor.column + 1) "
        let width = frame.width
        if left.columns + 2 + right.columns <= width {
            frame.put(left, x: 0, y: row, style: style)
            frame.put(right, x: width - right.columns, y: row, style: style)
        } else {
            frame.putTruncated(left, x: 0, y: row, width: width, style: style)
        }
    }
}
