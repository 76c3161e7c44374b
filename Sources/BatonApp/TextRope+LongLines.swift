/// Columns and edits in long lines (`longLineBytes` and longer): a walk to a character or a
/// display column starts from the nearest place the line's `LineIndex` knows, and an edit
/// measures the line only around itself, so a key costs the same at the end of a megabyte line
/// as at its start.
extension TextRope {
    /// Where character `column` of line `line` starts, and that character (nil at the end).
    func place(ofCharacter column: Int, inLine line: Int) -> (place: LinePlace, character: Character?) {
        withBytes(ofLine: line) { bytes in
            guard bytes.count >= longLineBytes else {
                var found: Character?
                let place = LineWalk.walk(bytes, from: .start) { place, character, _ in
                    guard place.character == column else { return true }
                    found = character
                    return false
                }
                return (place, found)
            }
            return indexes.withIndex(line: line) { $0.place(ofCharacter: column, in: bytes) }
        }
    }

    /// The place of the first character of line `line` whose right edge is past display column
    /// `goal`: the one a vertical move aiming at `goal` lands on, and the first one a view
    /// scrolled to `goal` shows. The line's end when there is none.
    func place(atDisplayColumn goal: Int, inLine line: Int) -> LinePlace {
        withBytes(ofLine: line) { bytes in
            guard bytes.count >= longLineBytes else {
                return LineWalk.walk(bytes, from: .start) { _, _, next in next <= goal }
            }
            return indexes.withIndex(line: line) { $0.place(atColumn: goal, in: bytes) }
        }
    }

    /// The end of line `line`: its characters, bytes and display columns.
    func end(ofLine line: Int) -> LinePlace {
        withBytes(ofLine: line) { bytes in
            guard bytes.count >= longLineBytes else { return LineWalk.walk(bytes, from: .start) { _, _, _ in true } }
            return indexes.withIndex(line: line) { $0.end(in: bytes) }
        }
    }

    /// Whether line `line` is long (`longLineBytes` or more).
    func isLong(line: Int) -> Bool {
        let (block, offset) = locate(line)
        return blocks[block].lines[offset].utf8 >= longLineBytes
    }

    /// Calls `body` with the UTF-8 of line `line`, in place.
    func withBytes<Result>(ofLine line: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let (block, offset) = locate(line)
        let start = lineStart(offset, in: blocks[block])
        return Self.withBytes(of: blocks[block].text, utf8: start..<(start + blocks[block].lines[offset].utf8), body)
    }

    static func withBytes<Result>(
        of text: Substring, utf8 range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeBufferPointer(rebasing: $0[range])) }) {
            return result
        }
        return Array(text.utf8).withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The part of `text` between two UTF-8 offsets at scalar boundaries, not copied.
    static func slice(_ text: Substring, utf8 range: Range<Int>) -> Substring {
        let lower = text.utf8.index(text.startIndex, offsetBy: range.lowerBound)
        return text[lower..<text.utf8.index(lower, offsetBy: range.count)]
    }

    /// Makes `indexes` this rope's own before the text changes.
    mutating func ownIndexes() {
        if !isKnownUniquelyReferenced(&indexes) { indexes = indexes.copy() }
    }

    /// `replaceInLine` for a long line: the columns found from the line's index, the block
    /// copied once with the edit, and the line's characters counted again only from the
    /// character before the edit to where old and new segment alike again (usually the edit's
    /// end). Nil, and nothing changed, when the block holds more than the line and would grow
    /// past twice `blockBytes`.
    mutating func replaceInLongLine(
        _ line: Int, block: Int, offset: Int, lineStart: Int, from startColumn: Int, to endColumn: Int, with text: String
    ) -> (removed: String, end: TextPosition)? {
        let info = blocks[block].lines[offset]
        let blockText = blocks[block].text
        let characters = characterCount(ofLine: line)
        let ascii = characters == info.utf8
        // The character before the edit: its start stays a boundary, and the columns before it stay.
        var before: LinePlace?
        let lower: Int
        let upper: Int
        if ascii {
            (lower, upper) = (startColumn, endColumn)
        } else {
            if startColumn > 0 {
                let (place, character) = place(ofCharacter: startColumn - 1, inLine: line)
                before = place
                lower = place.utf8 + (character?.utf8.count ?? 0)
            } else {
                before = .start
                lower = 0
            }
            upper = endColumn == startColumn ? lower : place(ofCharacter: endColumn, inLine: line).place.utf8
        }
        let lines = blocks[block].lines
        let size = blockText.utf8.count - (upper - lower) + text.utf8.count
        guard size <= 2 * blockBytes || lines.count == 1 || (offset == lines.count - 1 && info.utf8 >= blockBytes) else {
            return nil
        }

        let removed = Self.string(blockText, utf8: (lineStart + lower)..<(lineStart + upper))
        // One allocation and one copy of the block: the text before the edit, the new text,
        // the text after it.
        var joined = ""
        joined.reserveCapacity(size)
        joined += Self.slice(blockText, utf8: 0..<(lineStart + lower))
        joined += text
        joined += Self.slice(blockText, utf8: (lineStart + upper)..<blockText.utf8.count)
        let length = info.utf8 - (upper - lower) + text.utf8.count
        var count = length
        var column = startColumn + text.utf8.count
        if !ascii || text.utf8.contains(where: { $0 >= 0x80 }) {
            let from = before ?? LinePlace(character: max(0, startColumn - 1), utf8: max(0, startColumn - 1), column: 0)
            let newText = joined[...]
            (count, column) = Self.withBytes(of: blockText, utf8: lineStart..<(lineStart + info.utf8)) { old in
                Self.withBytes(of: newText, utf8: lineStart..<(lineStart + length)) { new in
                    Self.measureEdit(
                        old: old, new: new, from: from, lower: lower, upper: upper, inserted: text.utf8.count,
                        characters: characters)
                }
            }
        }
        blocks[block].text = joined[...]
        blocks[block].lines[offset] = Line(utf8: length, characters: count)
        utf8Count += text.utf8.count - removed.utf8.count
        ownIndexes()
        indexes.withIndex(line: line) { index in
            index.forget(from: lower)
            if let before { index.learn(before) }
        }
        return (removed, TextPosition(line: line, column: column))
    }

    /// The characters of a line after an edit that replaced bytes `lower..<upper` of `old` with
    /// `inserted` bytes, giving `new`, and the column where the inserted text ends (as the text
    /// up to there counts on its own, at most the line's characters). `from` is a character
    /// start before the edit; `characters` counts `old`.
    static func measureEdit(
        old: UnsafeBufferPointer<UInt8>, new: UnsafeBufferPointer<UInt8>, from: LinePlace, lower: Int, upper: Int,
        inserted: Int, characters: Int
    ) -> (count: Int, column: Int) {
        let shift = inserted - (upper - lower)
        let newUpper = lower + inserted
        // Both walks from `from`, past the edit, then on until they stand at the same boundary:
        // what follows a boundary segments the same whatever came before it.
        var oldPlace = LineWalk.walk(old, from: from) { place, _, _ in place.utf8 < upper }
        var newPlace = LineWalk.walk(new, from: from) { place, _, _ in place.utf8 < newUpper }
        while newPlace.utf8 - shift != oldPlace.utf8 {
            if newPlace.utf8 - shift < oldPlace.utf8 {
                newPlace = LineWalk.step(new, from: newPlace)
            } else {
                oldPlace = LineWalk.step(old, from: oldPlace)
            }
        }
        let count = characters - oldPlace.character + newPlace.character
        let head = String(decoding: UnsafeBufferPointer(rebasing: new[from.utf8..<newUpper]), as: UTF8.self)
        return (count, min(from.character + head.count, count))
    }
}
