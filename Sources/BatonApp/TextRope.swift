/// The text of a buffer as blocks of whole lines, each block one Swift string (up to 128 lines
/// or about 8 KiB) with the UTF-8 length and characters of its lines: an edit rewrites the
/// block (or the blocks) it touches, never the whole text. A key typed inside a line copies
/// its block once (small blocks keep that copy short) and measures that line alone.
///
/// Finding a line is a binary search of the blocks' first lines, kept in an array of their
/// own: reading each block's line count would touch a separate allocation per block, which,
/// with cold caches, costs more than the rest of a key.
///
/// Opening makes no copy and no grapheme walk: each block is a slice of the text it was made
/// from, and a line's characters are counted when the line is first asked for (an ASCII line
/// has as many characters as bytes). A block edited becomes a string of its own.
///
/// Lines split at `\n` only; a `\r` is a character of its line. Characters are counted per
/// line (a line is segmented on its own), so a line's last `\r` counts 1 although `\r\n`
/// is one `Character` in the whole string, and a column means the same here as in a
/// receiver that splits `text` the same way.
struct TextRope: Sendable {
    struct Line: Equatable, Sendable {
        /// In 32 bits each, as a line of a file the editor opens is at most 64 MiB: a 16 MB
        /// file of short lines has 400,000 of them, whose lengths took 6.4 MB as two `Int`s.
        private var storedUTF8: Int32
        private var storedCharacters: Int32

        var utf8: Int {
            get { Int(storedUTF8) }
            set { storedUTF8 = Int32(newValue) }
        }
        /// -1: not counted yet.
        var characters: Int {
            get { Int(storedCharacters) }
            set { storedCharacters = Int32(newValue) }
        }

        init(utf8: Int, characters: Int) {
            storedUTF8 = Int32(utf8)
            storedCharacters = Int32(characters)
        }
    }

    /// Whole lines: `text` is them joined by `\n` (no break after the last), `lines` their
    /// lengths. Consecutive blocks are joined by one `\n`.
    struct Block: Sendable {
        var text: Substring
        var lines: [Line]
    }

    var blocks: [Block]
    /// The first line of each block, in order (`firstLines[0]` is 0).
    private(set) var firstLines: [Int]
    /// How many lines there are; at least 1.
    private(set) var lineCount: Int
    /// Bytes of UTF-8 in all.
    var utf8Count: Int
    /// A block is cut after this many lines, or after the line that takes it to `blockBytes`.
    let blockLines: Int
    let blockBytes: Int
    /// Lines of at least this many bytes are long: finding a column in one starts from the
    /// nearest place its `LineIndex` knows, and an edit inside one measures only around it.
    let longLineBytes: Int
    /// Places known along long lines; copied before the text changes unless held by this rope
    /// alone.
    var indexes: LineIndexes

    init(_ text: String, blockLines: Int = 128, blockBytes: Int = 8 * 1024, longLineBytes: Int = 4096, checkpointSpacing: Int = 512) {
        self.blockLines = max(1, blockLines)
        self.blockBytes = max(1, blockBytes)
        self.longLineBytes = max(0, longLineBytes)
        indexes = LineIndexes(spacing: checkpointSpacing)
        // Characters of non-ASCII lines are counted when a line is first asked for, not here:
        // opening 16 MB is one pass over its bytes.
        let infos = Self.lineInfos(of: text, countingCharacters: false)
        blocks = Self.blocks(of: text[...], lines: infos, maxLines: self.blockLines, maxBytes: self.blockBytes)
        firstLines = Self.firstLines(of: blocks[...], from: 0)
        lineCount = infos.count
        utf8Count = text.utf8.count
    }

    /// The same text in arrays of its own: the block list, the blocks' first lines and the
    /// long lines' indexes (the blocks' texts and line lengths stay shared until one is
    /// edited, as with any copy). A snapshot kept beside the editor is made so, off the main
    /// actor: sharing the editor's arrays, it made the editor's next key copy all of them (the
    /// 2,000 blocks of a 16 MB file, a fifth of a millisecond).
    func unshared() -> TextRope {
        var copy = self
        copy.blocks = blocks.map { $0 }
        copy.firstLines = firstLines.map { $0 }
        copy.indexes = indexes.copy()
        return copy
    }

    /// How many blocks the text is in (for tests).
    var blockCount: Int { blocks.count }

    /// Characters (line by line) in line `line`.
    func characterCount(ofLine line: Int) -> Int {
        let (block, offset) = locate(line)
        let characters = blocks[block].lines[offset].characters
        return characters >= 0 ? characters : end(ofLine: line).character
    }

    /// Line `line` without its break.
    func line(_ line: Int) -> String {
        let (block, offset) = locate(line)
        let start = lineStart(offset, in: blocks[block])
        return Self.string(blocks[block].text, utf8: start..<(start + blocks[block].lines[offset].utf8))
    }

    /// The whole text.
    var string: String {
        if blocks.count == 1 { return String(blocks[0].text) }
        var result = ""
        result.reserveCapacity(utf8Count)
        for (index, block) in blocks.enumerated() {
            if index > 0 { result.append("\n") }
            result.append(contentsOf: block.text)
        }
        return result
    }

    /// Replaces the text from `start` to `end` (inside the text, `start` ≤ `end`) with
    /// `text`; returns the text removed and where the inserted text ends.
    mutating func replace(from start: TextPosition, to end: TextPosition, with text: String) -> (removed: String, end: TextPosition) {
        if start.line == end.line, !text.utf8.contains(10), let result = replaceInLine(from: start, to: end, with: text) {
            return result
        }
        ownIndexes()
        indexes.replaceLines(start.line, end.line, with: 1 + text.utf8.reduce(0) { $1 == 10 ? $0 + 1 : $0 })
        let (firstBlock, firstOffset) = locate(start.line)
        let (lastBlock, lastOffset) = locate(end.line)
        let first = line(start.line)
        let last = start.line == end.line ? first : line(end.line)
        let head = first[..<first.index(first.startIndex, offsetBy: start.column)]
        let tail = last[last.index(last.startIndex, offsetBy: end.column)...]
        // UTF-8 offsets of the two ends inside their blocks' texts.
        let lower = lineStart(firstOffset, in: blocks[firstBlock]) + head.utf8.count
        let upper = lineStart(lastOffset, in: blocks[lastBlock]) + last.utf8.count - tail.utf8.count

        let firstText = blocks[firstBlock].text
        let lastText = blocks[lastBlock].text
        var removed = ""
        if firstBlock == lastBlock {
            removed = Self.string(firstText, utf8: lower..<upper)
        } else {
            removed = Self.string(firstText, utf8: lower..<firstText.utf8.count)
            for block in blocks[(firstBlock + 1)..<lastBlock] {
                removed += "\n"
                removed += block.text
            }
            removed += "\n"
            removed += Self.string(lastText, utf8: 0..<upper)
        }

        // The lines from the first touched to the last, as they will be: what is kept of the
        // first, the new text, what is kept of the last. Segmented again as whole lines, so a
        // combining mark joins the letter an edit puts before it.
        let lastBreak = text.utf8.lastIndex(of: 10)
        let insertedLines = text.utf8.reduce(0) { $1 == 10 ? $0 + 1 : $0 }
        // Appended piece by piece, as in `replaceInLine`: `+` of a substring and a string goes a
        // character at a time.
        var changed = String(head)
        changed += text
        let endHeadCount = lastBreak.map { text[text.utf8.index(after: $0)...].count } ?? changed.count
        changed += tail
        let touched = Self.lineInfos(of: changed)
        let endColumn = min(endHeadCount, touched[touched.count - 1].characters)

        // The blocks from the first touched to the last, made again as one run of lines.
        var joined = String(Self.string(firstText, utf8: 0..<lower))
        joined.reserveCapacity(lower + text.utf8.count + lastText.utf8.count - upper)
        joined += text
        joined += Self.string(lastText, utf8: upper..<lastText.utf8.count)
        var lines = Array(blocks[firstBlock].lines[..<firstOffset])
        lines += touched
        lines += blocks[lastBlock].lines[(lastOffset + 1)...]
        let replacement = Self.blocks(of: joined[...], lines: lines, maxLines: blockLines, maxBytes: blockBytes)
        blocks.replaceSubrange(firstBlock...lastBlock, with: replacement)
        let lineChange = touched.count - (end.line - start.line + 1)
        firstLines.replaceSubrange(
            firstBlock...lastBlock, with: Self.firstLines(of: replacement[...], from: firstLines[firstBlock]))
        if lineChange != 0 {
            for index in (firstBlock + replacement.count)..<firstLines.count { firstLines[index] += lineChange }
        }

        lineCount += lineChange
        utf8Count += text.utf8.count - removed.utf8.count
        return (removed, TextPosition(line: start.line + insertedLines, column: endColumn))
    }

    /// An edit inside one line that adds no line break (typing, Backspace and Delete within a
    /// line): the line's block gets its text again with the line changed, and the line its new
    /// length, with no other line measured or block cut. Nil, and nothing changed, when the
    /// block would grow past twice `blockBytes` (then the block is cut again as any edit does).
    private mutating func replaceInLine(from start: TextPosition, to end: TextPosition, with text: String) -> (removed: String, end: TextPosition)? {
        let (block, offset) = locate(start.line)
        let lineStart = lineStart(offset, in: blocks[block])
        let blockText = blocks[block].text
        if blocks[block].lines[offset].utf8 >= longLineBytes {
            return replaceInLongLine(start.line, block: block, offset: offset, lineStart: lineStart, from: start.column, to: end.column, with: text)
        }
        if let done = replaceInASCIILine(
            start.line, block: block, offset: offset, lineStart: lineStart, from: start.column, to: end.column, with: text) {
            return done
        }
        let line = Self.string(blockText, utf8: lineStart..<(lineStart + blocks[block].lines[offset].utf8))
        let headEnd = line.index(line.startIndex, offsetBy: start.column)
        let tailStart = line.index(line.startIndex, offsetBy: end.column)
        let lower = lineStart + line.utf8.distance(from: line.startIndex, to: headEnd)
        let upper = lineStart + line.utf8.distance(from: line.startIndex, to: tailStart)
        let size = blockText.utf8.count - (upper - lower) + text.utf8.count
        guard size <= 2 * blockBytes || blocks[block].lines.count == 1 else { return nil }
        ownIndexes()
        indexes.replaceLines(start.line, start.line, with: 1)

        let removed = String(line[headEnd..<tailStart])
        // Measured as a whole line, so a combining mark joins the letter an edit puts before it.
        // Appended piece by piece: `+` of a substring and a string takes the generic path, a
        // character at a time.
        var endHead = String(line[..<headEnd])
        endHead += text
        var changed = endHead
        changed += line[tailStart...]
        let measured = Self.lineInfos(of: changed)[0]
        let endColumn = min(endHead.count, measured.characters)

        var joined = Self.string(blockText, utf8: 0..<lower)
        joined.reserveCapacity(size)
        joined += text
        joined += Self.string(blockText, utf8: upper..<blockText.utf8.count)
        blocks[block].text = joined[...]
        blocks[block].lines[offset] = measured
        utf8Count += text.utf8.count - removed.utf8.count
        return (removed, TextPosition(line: start.line, column: endColumn))
    }

    /// The block holding `line` and the line's place in it.
    func locate(_ line: Int) -> (block: Int, offset: Int) {
        precondition(line >= 0 && line < lineCount, "line \(line) of \(lineCount)")
        // The last block whose first line is at or before `line`.
        var low = 0
        var high = firstLines.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if firstLines[middle] <= line { low = middle } else { high = middle }
        }
        return (low, line - firstLines[low])
    }

    /// The UTF-8 offset in `block.text` where its line `offset` starts.
    func lineStart(_ offset: Int, in block: Block) -> Int {
        var start = 0
        for index in 0..<offset { start += block.lines[index].utf8 + 1 }
        return start
    }

    static func == (a: TextRope, b: TextRope) -> Bool {
        a.utf8Count == b.utf8Count && a.lineCount == b.lineCount && a.string.utf8.elementsEqual(b.string.utf8)
    }
}
