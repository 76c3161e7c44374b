import FoundationEssentials

extension BatonApp {
    /// Ctrl-6 or Alt-A: sets the mark at the cursor, or takes it away.
    static func toggleMark(_ state: inout EditorState) {
        state.history.seal()
        if state.mark == nil {
            state.mark = state.buffer.cursor
            state.isShiftMark = false
            state.findResult = "mark set"
        } else {
            dropMark(&state)
            state.findResult = "mark unset"
        }
    }

    /// Ends the selection.
    static func dropMark(_ state: inout EditorState) {
        state.mark = nil
        state.isShiftMark = false
    }

    /// Removes the selected text as one step; false when nothing is selected (then a mark at
    /// the cursor goes: the key deletes a character, and no selection appears behind it).
    @discardableResult
    static func deleteSelection(_ state: inout EditorState, now: Date) -> Bool {
        guard let (start, end) = state.selection else {
            dropMark(&state)
            return false
        }
        edit(&state, .replace, lines: start.line...end.line, now: now) { $0.replace(from: start, to: end, with: "") }
        dropMark(&state)
        return true
    }

    /// Ctrl-K with a mark: cuts the selected text (nil when the mark is at the cursor).
    static func cutSelection(_ state: inout EditorState, now: Date) -> Clip? {
        guard let (start, end) = state.selection else { return nil }
        let text = state.buffer.text(from: start, to: end)
        deleteSelection(&state, now: now)
        state.findResult = "cut \(text.count) characters"
        return .text(text)
    }

    /// Alt-6: copies the selected text, or the cursor's line when nothing is selected.
    static func copySelection(_ state: inout EditorState) -> Clip {
        defer { dropMark(&state) }
        guard let (start, end) = state.selection else {
            state.findResult = "copied the line"
            return .lines([String(state.buffer.currentLine)])
        }
        let text = state.buffer.text(from: start, to: end)
        state.findResult = "copied \(text.count) characters"
        return .text(text)
    }
}
