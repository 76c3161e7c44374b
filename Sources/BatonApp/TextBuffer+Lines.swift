extension TextBuffer {
    /// Calls `body` with the UTF-8 of line `index`, in place: not made a `String`.
    func withLineBytes<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        rope.withBytes(ofLine: index, body)
    }

    /// The lines from `start` on, `count` of them (clamped into the text).
    public func lines(from start: Int, count: Int) -> [String] {
        let from = start.clamped(0, lineCount), to = (start + count).clamped(0, lineCount)
        return (from..<to).map(lineText)
    }

    /// Replaces `removed` whole lines from line `start` with `lines`, as a leader's
    /// `LineChanges` describe them; false (and nothing changed) when they do not fit this text.
    /// The cursor is left where the caller puts it next.
    @discardableResult
    public mutating func replaceLines(from start: Int, removed: Int, with lines: [String]) -> Bool {
        guard start >= 0, removed >= 0, start + removed <= lineCount else { return false }
        let joined = lines.joined(separator: "\n")
        switch (removed, lines.count) {
        case (0, 0):
            return true
        case (0, _):
            if start < lineCount {
                replace(from: TextPosition(line: start, column: 0), to: TextPosition(line: start, column: 0), with: joined + "\n")
            } else {
                let last = lineCount - 1
                let end = TextPosition(line: last, column: characterCount(ofLine: last))
                replace(from: end, to: end, with: "\n" + joined)
            }
        case (_, 0):
            guard removed < lineCount else { return false }
            if start + removed < lineCount {
                replace(from: TextPosition(line: start, column: 0), to: TextPosition(line: start + removed, column: 0), with: "")
            } else {
                let from = TextPosition(line: start - 1, column: characterCount(ofLine: start - 1))
                let last = start + removed - 1
                replace(from: from, to: TextPosition(line: last, column: characterCount(ofLine: last)), with: "")
            }
        default:
            let last = start + removed - 1
            replace(
                from: TextPosition(line: start, column: 0), to: TextPosition(line: last, column: characterCount(ofLine: last)),
                with: joined)
        }
        return true
    }
}
