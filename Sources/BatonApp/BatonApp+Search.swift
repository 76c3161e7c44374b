import FoundationEssentials
import TerminalUI

extension BatonApp {
    /// Moves the cursor to the next match of `query` after it, wrapping to the first match at
    /// the end, and says which one it is ("3 of 17") or "not found". Matches follow
    /// `state.searchOptions` (case-insensitive unless asked, a regular expression when asked),
    /// are within a line, and are counted in whole characters.
    static func find(_ query: String, _ state: inout EditorState) {
        state.lastSearch = query
        state.history.seal()
        guard !query.isEmpty else { return }
        guard let pattern = compile(query, &state) else { return }
        var matches: [TextPosition] = []
        for index in 0..<state.buffer.lineCount {
            for range in pattern.matches(in: state.buffer.lineText(index)) {
                matches.append(TextPosition(line: index, column: range.lowerBound))
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

    /// `query` compiled with the editor's search options, or nil with the reason in the status bar.
    static func compile(_ query: String, _ state: inout EditorState) -> TextPattern? {
        do {
            return try TextPattern(query, options: state.searchOptions)
        } catch {
            state.findResult = error.description
            return nil
        }
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
