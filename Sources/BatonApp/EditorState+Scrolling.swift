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

    /// Columns the line numbers take at the left of a text area `width` wide (the widest
    /// number and a space), 0 without them or when the text would keep fewer than 8 columns.
    func gutterWidth(areaWidth width: Int) -> Int {
        guard display.lineNumbers else { return 0 }
        let gutter = String(buffer.lineCount).count + 1
        return width - gutter >= 8 ? gutter : 0
    }

    /// The rows line `index` takes with soft wrap in `textWidth` columns: one per `textWidth`
    /// columns of it, and one more when it fills its last row exactly (where the cursor goes
    /// at its end).
    func wrappedRows(ofLine index: Int, textWidth: Int) -> Int {
        TextBuffer.displayWidth(buffer.lineText(index)) / max(1, textWidth) + 1
    }

    /// `scrollShowingCursor(width:height:)` with the cursor's `TextBuffer.cursorColumns` known.
    /// `width` is the whole text area's; line numbers, when shown, take the gutter's part.
    func scrollShowingCursor(width areaWidth: Int, height: Int, cursorColumns: (start: Int, width: Int)) -> ScrollOffset {
        let width = areaWidth - gutterWidth(areaWidth: areaWidth)
        if display.softWrap, width > 0, height > 0 {
            return wrappedScrollShowingCursor(width: width, height: height, cursorColumns: cursorColumns)
        }
        var result = scroll
        result.topRow = 0
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

    /// With soft wrap: the first line (and row of it) shown, so that the cursor's row is in the
    /// area, moving as little as it can; nothing is scrolled sideways.
    private func wrappedScrollShowingCursor(width: Int, height: Int, cursorColumns: (start: Int, width: Int)) -> ScrollOffset {
        let cursor = buffer.cursor
        let cursorRow = cursorColumns.start / width
        var top = scroll.top.clamped(0, buffer.lineCount - 1)
        var topRow = top == scroll.top ? scroll.topRow : 0
        if cursor.line < top || (cursor.line == top && cursorRow < topRow) {
            return ScrollOffset(top: cursor.line, left: 0, topRow: max(0, cursorRow - height + 1))
        }
        // Rows from the top of the area down to the cursor's, counted while they could fit.
        var rows = 0
        var line = top
        while line < cursor.line && rows <= height {
            rows += wrappedRows(ofLine: line, textWidth: width) - (line == top ? topRow : 0)
            line += 1
        }
        rows += cursorRow + 1 - (cursor.line == top ? topRow : 0)
        if rows <= height { return ScrollOffset(top: top, left: 0, topRow: topRow) }
        // The cursor is below the area: the top goes down until the cursor's row is the last one.
        top = cursor.line
        topRow = cursorRow
        var above = height - 1
        while above > 0 {
            if topRow > 0 {
                let step = min(topRow, above)
                topRow -= step
                above -= step
            } else if top > 0 {
                let previous = wrappedRows(ofLine: top - 1, textWidth: width)
                if previous > above { topRow = previous - above; top -= 1; above = 0 } else { top -= 1; above -= previous }
            } else {
                break
            }
        }
        return ScrollOffset(top: top, left: 0, topRow: topRow)
    }

    /// Scrolls so the cursor shows in a text area of `width` × `height`.
    public mutating func scrollToCursor(width: Int, height: Int) {
        scroll = scrollShowingCursor(width: width, height: height)
    }
}
