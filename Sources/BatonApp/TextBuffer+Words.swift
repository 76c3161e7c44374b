extension TextBuffer {
    /// Whether `character` is part of a word for Ctrl-Left and Ctrl-Right: letters, digits
    /// and `_`, as nano counts them (punctuation and spaces are between words).
    static func isWordCharacter(_ character: Character) -> Bool {
        character == "_" || character.isLetter || character.isNumber
    }

    /// Ctrl-Right: to the start of the next word, across line ends; at the end of the text
    /// when no word follows.
    public mutating func moveWordRight() {
        var position = cursor
        var line = self.line(position.line)
        // Off the word the cursor is in, then over what separates it from the next.
        var inWord = position.column < line.count && Self.isWordCharacter(line[position.column])
        while true {
            if position.column >= line.count {
                guard position.line + 1 < lineCount else { break }
                position = TextPosition(line: position.line + 1, column: 0)
                line = self.line(position.line)
                inWord = false
                continue
            }
            let isWord = Self.isWordCharacter(line[position.column])
            if isWord && !inWord { break }
            inWord = isWord
            position.column += 1
        }
        move(to: position)
    }

    /// Ctrl-Left: to the start of this word, or of the one before it, across line starts; at
    /// the start of the text when no word comes before.
    public mutating func moveWordLeft() {
        var position = cursor
        var line = self.line(position.line)
        var seenWord = false
        while true {
            if position.column == 0 {
                if seenWord || position.line == 0 { break }
                position.line -= 1
                line = self.line(position.line)
                position.column = line.count
                continue
            }
            let isWord = Self.isWordCharacter(line[position.column - 1])
            if seenWord && !isWord { break }
            seenWord = seenWord || isWord
            position.column -= 1
        }
        move(to: position)
    }

    /// Ctrl-Home: to the start of the text.
    public mutating func moveToTextStart() { move(to: TextPosition(line: 0, column: 0)) }

    /// Ctrl-End: to the end of the text.
    public mutating func moveToTextEnd() { move(to: TextPosition(line: .max, column: .max)) }

    /// The text between two positions (taken in order, clamped into the text), lines joined
    /// with `\n`.
    public func text(from start: TextPosition, to end: TextPosition) -> String {
        let (from, to) = start <= end ? (start, end) : (end, start)
        let first = min(max(from.line, 0), lineCount - 1)
        let last = min(max(to.line, 0), lineCount - 1)
        if first == last {
            let characters = line(first)
            let lower = min(max(from.column, 0), characters.count)
            let upper = min(max(to.column, lower), characters.count)
            return String(characters[lower..<upper])
        }
        var parts: [String] = []
        let head = line(first)
        parts.append(String(head[min(max(from.column, 0), head.count)...]))
        if first + 1 < last {
            for index in (first + 1)..<last { parts.append(lineText(index)) }
        }
        let tail = line(last)
        parts.append(String(tail[..<min(max(to.column, 0), tail.count)]))
        return parts.joined(separator: "\n")
    }
}
