extension TextRope {
    /// `replaceInLine` for a line of ASCII and `text` of ASCII, typing's usual case: there a
    /// column is a byte, and no character can join across the edit (the one ASCII pair that
    /// makes one, CR LF, needs the line break that neither holds), so nothing is cut out as a
    /// `String` or measured again. Nil when the line or the text is not all ASCII, when the
    /// columns are not inside the line, or when the block would grow past twice `blockBytes`:
    /// `replaceInLine` then takes the edit as before.
    mutating func replaceInASCIILine(
        _ line: Int, block: Int, offset: Int, lineStart: Int, from startColumn: Int, to endColumn: Int, with text: String
    ) -> (removed: String, end: TextPosition)? {
        let info = blocks[block].lines[offset]
        // A line's characters equal its bytes only when every character is one byte: ASCII.
        guard info.characters == info.utf8, 0 <= startColumn, startColumn <= endColumn, endColumn <= info.utf8,
              text.utf8.allSatisfy({ $0 < 0x80 && $0 != 10 })
        else { return nil }
        let blockText = blocks[block].text
        let lower = lineStart + startColumn
        let upper = lineStart + endColumn
        let inserted = text.utf8.count
        let size = blockText.utf8.count - (upper - lower) + inserted
        guard size <= 2 * blockBytes || blocks[block].lines.count == 1 else { return nil }
        ownIndexes()
        indexes.replaceLines(line, line, with: 1)

        let removed = Self.string(blockText, utf8: lower..<upper)
        var joined = Self.string(blockText, utf8: 0..<lower)
        joined.reserveCapacity(size)
        joined += text
        joined += Self.string(blockText, utf8: upper..<blockText.utf8.count)
        blocks[block].text = joined[...]
        let length = info.utf8 - (upper - lower) + inserted
        blocks[block].lines[offset] = Line(utf8: length, characters: length)
        utf8Count += inserted - (upper - lower)
        return (removed, TextPosition(line: line, column: startColumn + inserted))
    }
}
