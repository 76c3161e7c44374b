import _RopeModule

/// The text of a buffer as a rope (swift-collections' `BigString`, which is underscored and
/// so kept behind this type) and an index of its lines, both edited in place: an edit costs
/// the logarithm of the text's size and the length of the lines it touches, never a pass
/// over the whole text.
///
/// Lines split at `\n` only; a `\r` is a character of its line. Characters are counted per
/// line (a line is segmented on its own), so a line's last `\r` counts 1 although `\r\n`
/// is one `Character` in the whole string, and a column means the same here as in a
/// receiver that splits `text` the same way.
struct TextRope: Sendable {
    private(set) var storage: BigString
    private var index: LineIndex

    init(_ text: String) {
        storage = BigString(text)
        // Characters of non-ASCII lines are counted when a line is first asked for, not here:
        // opening 16 MB then walks its graphemes once (in BigString), not twice.
        index = LineIndex(Self.lineInfos(of: text, countingCharacters: false))
    }

    /// How many lines there are; at least 1.
    var lineCount: Int { index.count }
    /// Bytes of UTF-8 in all.
    var utf8Count: Int { storage.utf8.count }
    /// Characters (line by line) in line `line`.
    func characterCount(ofLine line: Int) -> Int {
        let characters = index[line].characters
        return characters >= 0 ? characters : self.line(line).count
    }

    /// Line `line` without its break.
    func line(_ line: Int) -> String {
        let start = index.start(of: line)
        return string(utf8: start..<(start + index[line].utf8))
    }

    /// The whole text.
    var string: String { String(storage) }

    /// The UTF-8 offset of `position`, which must be inside the text (`line` holds the line's text when the caller has it).
    func utf8Offset(of position: TextPosition, line text: String? = nil) -> Int {
        let text = text ?? line(position.line)
        let end = text.index(text.startIndex, offsetBy: position.column)
        return index.start(of: position.line) + text.utf8.distance(from: text.startIndex, to: end)
    }

    /// Replaces the text from `start` to `end` (inside the text, `start` ≤ `end`) with
    /// `text`; returns the text removed and where the inserted text ends.
    mutating func replace(from start: TextPosition, to end: TextPosition, with text: String) -> (removed: String, end: TextPosition) {
        let first = line(start.line)
        let last = start.line == end.line ? first : line(end.line)
        let lower = utf8Offset(of: start, line: first)
        let upper = utf8Offset(of: end, line: last)
        let removed = lower == upper ? "" : string(utf8: lower..<upper)
        // The lines from the first touched to the last, as they will be: what is kept of the
        // first, the new text, what is kept of the last. Segmented again as whole lines, so a
        // combining mark joins the letter an edit puts before it.
        let head = first[..<first.index(first.startIndex, offsetBy: start.column)]
        let tail = last[last.index(last.startIndex, offsetBy: end.column)...]
        let lastBreak = text.utf8.lastIndex(of: 10)
        let insertedLines = text.utf8.reduce(0) { $1 == 10 ? $0 + 1 : $0 }
        let endHead: Substring = lastBreak.map { text[text.utf8.index(after: $0)...] } ?? (head + text)[...]
        var infos = Self.lineInfos(of: String(head) + text + String(tail))
        let endLine = start.line + insertedLines
        let endColumn = min(endHead.count, infos[infos.count - 1].characters)
        if !removed.isEmpty || !text.isEmpty {
            let range = storage.utf8.index(storage.startIndex, offsetBy: lower)..<storage.utf8.index(storage.startIndex, offsetBy: upper)
            storage.replaceSubrange(range, with: text)
        }
        index.replace(start.line...end.line, with: &infos)
        return (removed, TextPosition(line: endLine, column: endColumn))
    }

    /// The text between two UTF-8 offsets, both at scalar boundaries.
    private func string(utf8 range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        let lower = storage.utf8.index(storage.startIndex, offsetBy: range.lowerBound)
        let upper = storage.utf8.index(lower, offsetBy: range.count)
        // Through the UTF-8 view: a `BigSubstring` would round its ends to whole characters
        // of the whole string (`\r\n` is one), and a line ends before its `\n`.
        guard let piece = BigString(storage.utf8[lower..<upper]) else { return "" }
        return String(piece)
    }

    /// Each line's UTF-8 length and characters (-1, not counted yet, for a line that is not
    /// ASCII unless `countingCharacters`). An ASCII line has as many characters as bytes (it
    /// holds no `\n`, so no `\r\n`), which spares most lines the grapheme walk.
    static func lineInfos(of text: String, countingCharacters: Bool = true) -> [LineIndex.Line] {
        var infos: [LineIndex.Line] = []
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            var ascii = true
            for position in 0...bytes.count {
                let byte: UInt8 = position < bytes.count ? bytes[position] : 10
                if byte == 10 {
                    let length = position - start
                    let characters: Int
                    if ascii {
                        characters = length
                    } else if !countingCharacters {
                        characters = -1
                    } else {
                        characters = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self).count
                    }
                    infos.append(LineIndex.Line(utf8: length, characters: characters))
                    start = position + 1
                    ascii = true
                } else if byte >= 0x80 {
                    ascii = false
                }
            }
        }
        return infos
    }

    static func == (a: TextRope, b: TextRope) -> Bool {
        a.storage.utf8 == b.storage.utf8
    }
}

/// Per line its UTF-8 length (without the break) and characters, in blocks of a few hundred
/// lines with each block's total: finding a line walks the blocks' totals, and an edit
/// changes one block (or the blocks it spans), not every line after it.
struct LineIndex: Sendable {
    struct Line: Equatable, Sendable {
        var utf8: Int
        /// -1: not counted yet.
        var characters: Int
    }

    static let blockSize = 512

    private var blocks: [[Line]]
    /// Per block, the UTF-8 its lines take with their breaks.
    private var blockUTF8: [Int]
    private(set) var count: Int

    init(_ lines: [Line]) {
        precondition(!lines.isEmpty)
        blocks = stride(from: 0, to: lines.count, by: Self.blockSize).map {
            Array(lines[$0..<min($0 + Self.blockSize, lines.count)])
        }
        blockUTF8 = blocks.map(Self.utf8)
        count = lines.count
    }

    subscript(line: Int) -> Line {
        let (block, offset) = locate(line)
        return blocks[block][offset]
    }

    /// The UTF-8 offset where `line` starts.
    func start(of line: Int) -> Int {
        var remaining = line
        var offset = 0
        for (block, lines) in blocks.enumerated() {
            if remaining < lines.count {
                for index in 0..<remaining { offset += lines[index].utf8 + 1 }
                return offset
            }
            remaining -= lines.count
            offset += blockUTF8[block]
        }
        preconditionFailure("line \(line) of \(count)")
    }

    /// Puts `new` (at least one line) where the lines in `range` were.
    mutating func replace(_ range: ClosedRange<Int>, with new: inout [Line]) {
        precondition(!new.isEmpty && range.upperBound < count)
        let (first, offset) = locate(range.lowerBound)
        var remaining = range.count
        var block = first
        var position = offset
        while true {
            let taken = min(remaining, blocks[block].count - position)
            blocks[block].removeSubrange(position..<(position + taken))
            remaining -= taken
            if remaining == 0 { break }
            block += 1
            position = 0
        }
        blocks[first].insert(contentsOf: new, at: offset)
        count += new.count - range.count
        // Tidy the blocks touched: drop the emptied ones, cut the grown ones, recount them.
        var tidy: [[Line]] = []
        for index in first...block where !blocks[index].isEmpty {
            let lines = blocks[index]
            if lines.count <= 2 * Self.blockSize {
                tidy.append(lines)
            } else {
                tidy += stride(from: 0, to: lines.count, by: Self.blockSize).map {
                    Array(lines[$0..<min($0 + Self.blockSize, lines.count)])
                }
            }
        }
        blocks.replaceSubrange(first...block, with: tidy)
        blockUTF8.replaceSubrange(first...block, with: tidy.map(Self.utf8))
    }

    private func locate(_ line: Int) -> (block: Int, offset: Int) {
        precondition(line >= 0 && line < count, "line \(line) of \(count)")
        var remaining = line
        for (block, lines) in blocks.enumerated() {
            if remaining < lines.count { return (block, remaining) }
            remaining -= lines.count
        }
        preconditionFailure("line \(line) of \(count)")
    }

    private static func utf8(_ lines: [Line]) -> Int {
        lines.reduce(0) { $0 + $1.utf8 + 1 }
    }
}
