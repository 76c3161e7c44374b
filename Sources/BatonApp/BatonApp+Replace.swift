import FoundationEssentials
import TerminalUI

extension BatonApp {
    /// Starts replacing `query` with `replacement` from the cursor: the first match is selected
    /// and the question asked, or the status bar says there is none.
    static func startReplace(_ query: String, with replacement: String, _ state: inout EditorState, _ model: inout AppModel) {
        state.lastSearch = query
        state.lastReplacement = replacement
        state.history.seal()
        model.overlay = nil
        guard let pattern = compile(query, &state) else { return }
        let origin = state.buffer.cursor
        var replace = ReplaceState(
            query: query, options: state.searchOptions, replacement: replacement, match: (origin, origin),
            origin: origin, wrapped: false)
        guard let match = nextMatch(pattern, from: origin, &replace, state.buffer) else {
            state.findResult = "\"\(query)\" not found"
            return
        }
        show(match, &replace, &state)
        model.overlay = .replacing(replace)
    }

    /// y, n, a(ll), or Esc (Ctrl-C) while replacing.
    static func handleReplacingKey(_ key: Key, _ replace: ReplaceState, _ model: inout AppModel) -> [AppCommand] {
        guard case .editor = model.session, let pattern = try? TextPattern(replace.query, options: replace.options) else {
            model.overlay = nil
            return []
        }
        switch key {
        case .character("y"), .character("Y"), .character("n"), .character("N"), .character("a"), .character("A"), .escape, .control("c"):
            break
        default:
            return []
        }
        // Taken out of the model while it changes: a copy beside it would copy the whole text
        // and history at each y.
        guard var state = model.takeEditorState() else { return [] }
        var replace = replace
        var next: (start: TextPosition, end: TextPosition)?
        switch key {
        case .character("y"), .character("Y"):
            let after = replaceMatch(pattern, &replace, &state, now: model.now)
            next = nextMatch(pattern, from: after, &replace, state.buffer)
        case .character("n"), .character("N"):
            next = nextMatch(pattern, from: replace.match.end, &replace, state.buffer)
        case .character("a"), .character("A"):
            if !replaceAll(pattern, &replace, &state, now: model.now) {
                // One at a time, as y would, to the last.
                var match: (start: TextPosition, end: TextPosition)? = replace.match
                while let current = match {
                    replace.match = current
                    let after = replaceMatch(pattern, &replace, &state, now: model.now)
                    match = nextMatch(pattern, from: after, &replace, state.buffer)
                }
            }
        default:
            break
        }
        if let next {
            show(next, &replace, &state)
            model.overlay = .replacing(replace)
        } else {
            dropMark(&state)
            model.overlay = nil
            state.findResult = replace.replaced == 1 ? "replaced 1 occurrence" : "replaced \(replace.replaced) occurrences"
        }
        model.session = .editor(state)
        return []
    }

    /// Selects `match` (the cursor at its start) as the one the question is about.
    private static func show(
        _ match: (start: TextPosition, end: TextPosition), _ replace: inout ReplaceState, _ state: inout EditorState
    ) {
        replace.match = match
        state.buffer.move(to: match.start)
        state.mark = match.end
        state.isShiftMark = false
    }

    /// Replaces `replace.match` as one undo step; returns where the search goes on (the end of
    /// what was put in, so that a replacement is never searched again).
    private static func replaceMatch(
        _ pattern: TextPattern, _ replace: inout ReplaceState, _ state: inout EditorState, now: Date
    ) -> TextPosition {
        let (start, end) = replace.match
        guard let found = pattern.firstMatch(in: state.buffer.lineText(start.line), from: start.column),
              found.columns.lowerBound == start.column else { return end }
        let text = pattern.replacement(replace.replacement, for: found)
        let linesBefore = state.buffer.lineCount
        let lengthBefore = state.buffer.characterCount(ofLine: end.line)
        state.history.seal()
        edit(&state, .replace, lines: start.line...end.line, now: now) { $0.replace(from: start, to: end, with: text) }
        replace.replaced += 1
        let after = state.buffer.cursor
        if replace.wrapped, start <= replace.origin {
            // Text before where the replace began changed: where it began moves with it.
            if replace.origin.line == end.line {
                replace.origin = TextPosition(
                    line: after.line,
                    column: replace.origin.column + state.buffer.characterCount(ofLine: after.line) - lengthBefore)
            } else {
                replace.origin.line += state.buffer.lineCount - linesBefore
            }
        }
        return after
    }

    /// The first match at or after `position`: to the end of the text, then from its start to
    /// where the replace began; nil when none is left.
    private static func nextMatch(
        _ pattern: TextPattern, from position: TextPosition, _ replace: inout ReplaceState, _ buffer: TextBuffer
    ) -> (start: TextPosition, end: TextPosition)? {
        var line = position.line
        var column = position.column
        while true {
            if line >= buffer.lineCount {
                if replace.wrapped { return nil }
                replace.wrapped = true
                line = 0
                column = 0
            }
            if replace.wrapped && line > replace.origin.line { return nil }
            if let found = pattern.firstMatch(in: buffer.lineText(line), from: column) {
                let start = TextPosition(line: line, column: found.columns.lowerBound)
                if replace.wrapped && start >= replace.origin { return nil }
                return (start, TextPosition(line: line, column: found.columns.upperBound))
            }
            line += 1
            column = 0
        }
    }
}
