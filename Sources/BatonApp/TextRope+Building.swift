extension TextRope {
    /// Whether this rope and `other` hold the same block list or first lines (for tests).
    func sharesArrays(with other: TextRope) -> Bool {
        func same<T>(_ a: [T], _ b: [T]) -> Bool {
            a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        }
        return same(blocks, other.blocks) || same(firstLines, other.firstLines)
    }

    /// The first line of each of `blocks`, the first of them starting at line `first`.
    static func firstLines(of blocks: ArraySlice<Block>, from first: Int) -> [Int] {
        var result: [Int] = []
        result.reserveCapacity(blocks.count)
        var line = first
        for block in blocks {
            result.append(line)
            line += block.lines.count
        }
        return result
    }

    /// The text of `text` between two UTF-8 offsets, both at scalar boundaries.
    static func string(_ text: Substring, utf8 range: Range<Int>) -> String {
        guard !range.isEmpty else { return "" }
        // All of a block that is a string of its own (a long line, once edited): that string,
        // shared, not copied, so reading a megabyte line (to draw it, to record an undo step,
        // to publish the text) costs nothing per key.
        if range == 0..<text.utf8.count, text.startIndex == text.base.startIndex, text.endIndex == text.base.endIndex {
            return text.base
        }
        let lower = text.utf8.index(text.startIndex, offsetBy: range.lowerBound)
        let upper = text.utf8.index(lower, offsetBy: range.count)
        // Through the UTF-8 view, so the ends are where the offsets say: a line ends before
        // its `\n` even when a `\r` is before it (`\r\n` is one `Character` of the block).
        // The view's initializer checks only that the ends are scalar boundaries and copies
        // the bytes; `String(decoding:)` would validate them all again (a 32 KiB block on
        // every key typed).
        let bytes = text.utf8[lower..<upper]
        return String(bytes) ?? String(decoding: bytes, as: UTF8.self)
    }

    /// `text` (whose lines `lines` describe) cut into blocks of at most `maxLines` lines, each
    /// ending at the line that takes it to `maxBytes` or past. Slices of `text`, no copies.
    static func blocks(of text: Substring, lines: [Line], maxLines: Int, maxBytes: Int) -> [Block] {
        var result: [Block] = []
        var blockStart = text.startIndex
        var firstLine = 0
        var bytes = 0
        var position = text.startIndex
        for (index, line) in lines.enumerated() {
            position = text.utf8.index(position, offsetBy: line.utf8)
            bytes += line.utf8 + 1
            let isLast = index == lines.count - 1
            let cut = isLast || index + 1 - firstLine >= maxLines || bytes >= maxBytes
            if cut { result.append(Block(text: text[blockStart..<position], lines: Array(lines[firstLine...index]))) }
            guard !isLast else { break }
            position = text.utf8.index(after: position)  // the line's break
            if cut {
                blockStart = position
                firstLine = index + 1
                bytes = 0
            }
        }
        return result
    }

    /// Each line's UTF-8 length and characters (-1, not counted yet, for a line that is not
    /// ASCII unless `countingCharacters`). An ASCII line has as many characters as bytes (it
    /// holds no `\n`, so no `\r\n`), which spares most lines the grapheme walk.
    static func lineInfos(of text: String, countingCharacters: Bool = true) -> [Line] {
        var infos: [Line] = []
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
                    infos.append(Line(utf8: length, characters: characters))
                    start = position + 1
                    ascii = true
                } else if byte >= 0x80 {
                    ascii = false
                }
            }
        }
        return infos
    }
}

extension TextRope {
    /// The same rope with its blocks slices of `text`, which must be this rope's text
    /// (`string`), in arrays of its own (as `unshared`); the blocks' line lengths are shared. A
    /// long line that is a block and a string of its own stays so (`string(_:utf8:)` hands out
    /// such a line without a copy, which a slice would make on every key).
    func recut(from text: String) -> TextRope {
        precondition(text.utf8.count == utf8Count, "recut from another text")
        var copy = unshared()
        var position = text.startIndex
        copy.blocks = blocks.map { block in
            let bytes = block.text.utf8.count
            let end = text.utf8.index(position, offsetBy: bytes)
            defer { if end < text.endIndex { position = text.utf8.index(after: end) } }
            let isOwnString = block.text.startIndex == block.text.base.startIndex
                && block.text.endIndex == block.text.base.endIndex
            if isOwnString, block.lines.count == 1, bytes >= longLineBytes { return block }
            return Block(text: text[position..<end], lines: block.lines)
        }
        return copy
    }
}
