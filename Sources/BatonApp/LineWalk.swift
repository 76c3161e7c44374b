/// A place in one line, at the start of a character: how many characters, UTF-8 bytes and
/// display columns come before it.
public struct LinePlace: Equatable, Sendable {
    public var character: Int
    public var utf8: Int
    public var column: Int

    public init(character: Int, utf8: Int, column: Int) {
        self.character = character
        self.utf8 = utf8
        self.column = column
    }

    /// The start of a line.
    public static let start = LinePlace(character: 0, utf8: 0, column: 0)
}

/// Walks the characters of one line's UTF-8 from any place at the start of a character,
/// measuring as `TextBuffer` does (tabs to the next stop, controls as their pictures).
///
/// Segmenting can start at any character boundary: whether a boundary falls between two
/// scalars depends only on the scalars up to the later one, and what follows a boundary is
/// segmented as if the text began there. So a walk from a place in the middle of a line finds
/// the same characters as a walk from the line's start. Two ASCII bytes in a row are two
/// characters (a line holds no `\n`, so no `\r\n`); other text is segmented a short window at
/// a time, trusting every boundary in the window but its end (a mark after the window could
/// still join its last character), unless the window reaches the end of the line.
enum LineWalk {
    /// Display columns of each ASCII byte as a character of its own (a tab is measured apart).
    static let asciiColumns: [Int] = (0..<128).map { TextBuffer.columns(of: Character(Unicode.Scalar(UInt8($0)))) }

    /// Bytes segmented at a time where the text is not ASCII.
    static let window = 64

    /// Calls `body` with each character of `bytes` (a line's UTF-8, valid) from `place` on, its
    /// place and the display column after it, until `body` returns false; returns the place of
    /// the character refused, or the end of the line.
    @discardableResult
    static func walk(
        _ bytes: UnsafeBufferPointer<UInt8>, from place: LinePlace, _ body: (LinePlace, Character, Int) -> Bool
    ) -> LinePlace {
        var place = place
        let count = bytes.count
        var size = window
        while place.utf8 < count {
            let position = place.utf8
            let byte = bytes[position]
            if byte < 0x80, position + 1 == count || bytes[position + 1] < 0x80 {
                let next = byte == 9
                    ? (place.column / TextBuffer.tabWidth + 1) * TextBuffer.tabWidth
                    : place.column + asciiColumns[Int(byte)]
                guard body(place, Character(Unicode.Scalar(byte)), next) else { return place }
                place = LinePlace(character: place.character + 1, utf8: position + 1, column: next)
                continue
            }
            var end = min(count, position + size)
            while end < count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            let piece = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<end]), as: UTF8.self)
            var characters = piece.makeIterator()
            var pending = characters.next()
            var taken = 0
            while let character = pending {
                pending = characters.next()
                if pending == nil, end < count { break }
                let next = TextBuffer.advance(from: place.column, over: character)
                guard body(place, character, next) else { return place }
                place = LinePlace(character: place.character + 1, utf8: place.utf8 + character.utf8.count, column: next)
                taken += 1
            }
            // One character longer than the window (many marks on one letter): a wider window.
            size = taken == 0 ? size * 2 : window
        }
        return place
    }

    /// The place of the next character after `place` (the end of the line at its last one).
    static func step(_ bytes: UnsafeBufferPointer<UInt8>, from place: LinePlace) -> LinePlace {
        var first = true
        return walk(bytes, from: place) { _, _, _ in
            defer { first = false }
            return first
        }
    }
}
