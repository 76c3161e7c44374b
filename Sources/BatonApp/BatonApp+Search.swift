import FoundationEssentials

extension BatonApp {
    /// Moves the cursor to the next match of `query` after it, wrapping to the first match at
    /// the end, and says which one it is ("3 of 17") or "not found". Matches are exact
    /// (case-sensitive) and within a line; they are counted in whole characters.
    static func find(_ query: String, _ state: inout EditorState) {
        state.lastSearch = query
        state.history.seal()
        let needle = Array(query)
        guard !needle.isEmpty else { return }
        var matches: [TextPosition] = []
        for index in 0..<state.buffer.lineCount {
            let line = state.buffer.line(index)
            guard line.count >= needle.count else { continue }
            var column = 0
            while column + needle.count <= line.count {
                if line[column] == needle[0], line[column..<(column + needle.count)].elementsEqual(needle) {
                    matches.append(TextPosition(line: index, column: column))
                    column += needle.count
                } else {
                    column += 1
                }
            }
        }
        guard !matches.isEmpty else {
            state.findResult = "\"\(query)\" not found"
            return
        }
        let cursor = state.buffer.cursor
        let next = matches.firstIndex { $0 > cursor }
        let index = next ?? 0
        state.buffer.move(to: matches[index])
        state.findResult = "\(index + 1) of \(matches.count)" + (next == nil ? ", wrapped" : "")
    }

    /// Goes to the start of line `answer` (counted from 1; past the end, the last line), or
    /// gives why the answer is not a line number.
    static func goToLine(_ answer: String, _ state: inout EditorState) -> String? {
        guard let number = Int(answer.trimmed(newlines: false)), number >= 1 else {
            return "type a line number from 1 to \(state.buffer.lineCount)"
        }
        state.history.seal()
        state.buffer.move(to: TextPosition(line: min(number, state.buffer.lineCount) - 1, column: 0))
        return nil
    }
}
