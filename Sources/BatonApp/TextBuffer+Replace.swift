extension TextBuffer {
    /// Replaces the text between `start` and `end` with `text` and returns the text removed;
    /// the cursor ends after the inserted text. Both positions are clamped into the text, and
    /// swapped when `end` comes first. Line breaks in `text` split lines as `insert` does.
    ///
    /// A simple version on today's line storage, built on the public API only (the rope
    /// storage brings its own, with the same contract).
    @discardableResult
    public mutating func replace(from start: TextPosition, to end: TextPosition, with text: String) -> String {
        let from = clamped(min(start, end))
        let to = clamped(max(start, end))
        var removed = ""
        if from != to {
            if from.line == to.line {
                removed = String(lines[from.line][from.column..<to.column])
            } else {
                removed = String(lines[from.line][from.column...])
                for line in (from.line + 1)..<to.line { removed += "\n" + String(lines[line]) }
                removed += "\n" + String(lines[to.line][..<to.column])
            }
            if from.line == to.line && to.column - from.column <= 64 {
                move(to: from)
                for _ in from.column..<to.column { deleteForward() }
            } else {
                // Rebuilt from the text around the range: linear in the text, once per call.
                var kept = ""
                for line in 0..<from.line { kept += String(lines[line]) + "\n" }
                kept += String(lines[from.line][..<from.column])
                kept += String(lines[to.line][to.column...])
                for line in (to.line + 1)..<lineCount { kept += "\n" + String(lines[line]) }
                self = TextBuffer(text: kept, cursor: from)
            }
        }
        move(to: from)
        if !text.isEmpty { insert(text) }
        return removed
    }

    /// `position` inside the text (the line first, then the column on that line).
    private func clamped(_ position: TextPosition) -> TextPosition {
        let line = min(max(position.line, 0), lineCount - 1)
        return TextPosition(line: line, column: min(max(position.column, 0), lines[line].count))
    }
}
