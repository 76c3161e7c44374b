extension EditorState {
    /// The scroll offset that shows the cursor in a text area of `width` × `height`, moving as
    /// little as it can from `scroll`.
    ///
    /// Vertically the cursor's line is inside the area, and no rows are left empty below the
    /// text while lines above are hidden. Horizontally the character under the cursor fits
    /// whole; when the cursor is off screen and the start of the line would show it, the view
    /// goes back to column 0.
    public func scrollShowingCursor(width: Int, height: Int) -> ScrollOffset {
        scrollShowingCursor(width: width, height: height, cursorColumns: buffer.cursorColumns)
    }

    /// `scrollShowingCursor(width:height:)` with the cursor's `TextBuffer.cursorColumns` known.
    func scrollShowingCursor(width: Int, height: Int, cursorColumns: (start: Int, width: Int)) -> ScrollOffset {
        var result = scroll
        let cursor = buffer.cursor
        if height > 0 {
            if cursor.line < result.top {
                result.top = cursor.line
            } else if cursor.line >= result.top.addingSaturated(height) {
                result.top = cursor.line - height + 1
            }
            result.top = result.top.clamped(0, max(0, buffer.lineCount - height))
        }
        if width > 0 {
            let column = cursorColumns.start
            let end = column + cursorColumns.width
            if column >= result.left && end <= result.left.addingSaturated(width) {
                // Visible already.
            } else if end <= width {
                result.left = 0
            } else if column < result.left {
                result.left = column
            } else {
                result.left = end - width
            }
            result.left = result.left.clamped(0, column)
        }
        return result
    }

    /// Scrolls so the cursor shows in a text area of `width` × `height`.
    public mutating func scrollToCursor(width: Int, height: Int) {
        scroll = scrollShowingCursor(width: width, height: height)
    }
}
