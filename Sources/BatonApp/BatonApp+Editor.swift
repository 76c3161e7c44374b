import FoundationEssentials
import TerminalUI

extension BatonApp {
    /// The editor's keys: typing, Enter, Backspace, Delete, Tab, arrows, Home/End (also Ctrl-A/E),
    /// PgUp/PgDn, Ctrl-S save, Ctrl-O save as, Ctrl-Z undo (also Alt-U), Ctrl-Y redo,
    /// Ctrl-F/Ctrl-W search (F3 again), Ctrl-K cut line, Ctrl-U paste, Ctrl-G go to line.
    static func handleEditorKey(_ key: Key, _ state: inout EditorState, _ model: inout AppModel) -> [AppCommand] {
        let page = max(1, model.layout.contentHeight)
        let now = model.now
        let gathering = state.isGatheringCut
        state.isGatheringCut = false
        state.findResult = nil
        if state.isEscapePending {
            state.isEscapePending = false
            if key == .character("u") || key == .character("U") {
                undo(&state)
                return []
            }
            // Any other Alt-key (the terminal sends Esc and the key) is not a key of this editor:
            // it types nothing, and the message line says so.
            if case .character(let character) = key {
                model.show("Alt-\(character) does nothing here; Alt-U undoes")
                return []
            }
        }
        let line = state.buffer.cursor.line
        switch key {
        case .character(let character):
            switch character {
            case "\n", "\r", "\r\n":
                edit(&state, .typing, lines: line...line, now: now) { $0.insertNewline() }
            case "\t":
                edit(&state, .typing, lines: line...line, now: now) { $0.insertTab() }
            default:
                // Control characters are not text; a pasted one would only show as a picture.
                guard character.asciiValue.map({ $0 >= 0x20 && $0 < 0x7F }) == true
                      || !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    return []
                }
                edit(&state, .typing, lines: line...line, now: now) { $0.insert(character) }
            }
        case .enter:
            edit(&state, .typing, lines: line...line, now: now) { $0.insertNewline() }
        case .tab:
            edit(&state, .typing, lines: line...line, now: now) { $0.insertTab() }
        case .backspace:
            let first = state.buffer.cursor.column == 0 ? max(0, line - 1) : line
            edit(&state, .backspace, lines: first...line, now: now) { $0.backspace() }
        case .delete:
            let last = state.buffer.cursor.column == state.buffer.characterCount(ofLine: line)
                ? min(line + 1, state.buffer.lineCount - 1) : line
            edit(&state, .deleteForward, lines: line...last, now: now) { $0.deleteForward() }
        case .control("z"):
            undo(&state)
        case .control("y"):
            redo(&state)
        case .escape:
            state.isEscapePending = true
        case .control("k"):
            let before = state.cutLines
            cutLine(&state, gathering: gathering, now: now)
            guard state.cutLines != before || !gathering else { return [] }
            model.clipboard = state.cutLines
            return [.keepClipboard(state.cutLines)]
        case .control("u"):
            paste(model.clipboard.map { $0 + "\n" }.joined(), &state, now: now)
        case .control("f"), .control("w"):
            model.overlay = .prompt(.search(last: state.lastSearch))
        case .function(3):
            if let query = state.lastSearch { find(query, &state) }
        case .control("g"):
            model.overlay = .prompt(.goToLine())
        default:
            state.history.seal()  // a cursor move (or any other key) ends a run of typing
            return handleEditorMotion(key, &state, &model, page: page)
        }
        return []
    }

    /// The keys that move the cursor or save.
    private static func handleEditorMotion(
        _ key: Key, _ state: inout EditorState, _ model: inout AppModel, page: Int
    ) -> [AppCommand] {
        switch key {
        case .left:
            state.buffer.moveLeft()
        case .right:
            state.buffer.moveRight()
        case .up:
            state.buffer.moveUp()
        case .down:
            state.buffer.moveDown()
        case .home, .control("a"):
            state.buffer.moveToLineStart()
        case .end, .control("e"):
            state.buffer.moveToLineEnd()
        case .pageUp:
            state.buffer.moveUp(by: page)
            state.scroll.top = max(0, state.scroll.top - page)
        case .pageDown:
            state.buffer.moveDown(by: page)
            state.scroll.top = state.scroll.top.addingSaturated(page).clamped(0, max(0, state.buffer.lineCount - page))
        case .control("s"):
            return startSave(state, thenQuit: false, &model)
        case .control("o"):
            model.overlay = .prompt(.saveAs(suggestion: state.filePath ?? state.fileName))
        default:
            break
        }
        return []
    }

    /// Makes one edit to the buffer, which touches at most the lines `range` (they may become
    /// more or fewer), and records it in the history. Returns whether the text changed.
    @discardableResult
    static func edit(
        _ state: inout EditorState, _ kind: EditStep.Kind, lines range: ClosedRange<Int>, now: Date,
        _ body: (inout TextBuffer) -> Void
    ) -> Bool {
        let version = state.buffer.version
        let cursorBefore = state.buffer.cursor
        let countBefore = state.buffer.lineCount
        let removed = state.buffer.lineStrings(range)
        body(&state.buffer)
        guard state.buffer.version != version else { return false }
        let last = range.upperBound + state.buffer.lineCount - countBefore
        let inserted = state.buffer.lineStrings(range.lowerBound...last)
        state.history.record(
            EditStep(
                line: range.lowerBound, removed: removed, inserted: inserted,
                cursorBefore: cursorBefore, cursorAfter: state.buffer.cursor, kind: kind),
            at: now)
        state.isDirty = true
        return true
    }

    /// Inserts `text` at the cursor as one step (Ctrl-U, a paste).
    static func paste(_ text: String, _ state: inout EditorState, now: Date) {
        guard !text.isEmpty else { return }
        let line = state.buffer.cursor.line
        edit(&state, .paste, lines: line...line, now: now) { $0.insert(text) }
    }

    /// Ctrl-Z: undoes the last step and puts the cursor back where the change was.
    static func undo(_ state: inout EditorState) {
        guard let step = state.history.popUndo() else {
            state.findResult = "nothing to undo"
            return
        }
        state.buffer.undo(step)
        state.isDirty = true
    }

    /// Ctrl-Y: does the last undone step again.
    static func redo(_ state: inout EditorState) {
        guard let step = state.history.popRedo() else {
            state.findResult = "nothing to redo"
            return
        }
        state.buffer.redo(step)
        state.isDirty = true
    }

    /// Ctrl-K: cuts the cursor's line (its text on the last line); right after another
    /// Ctrl-K the line joins the ones cut before.
    static func cutLine(_ state: inout EditorState, gathering: Bool, now: Date) {
        let line = state.buffer.cursor.line
        let text = String(state.buffer.currentLine)
        let isLast = line + 1 == state.buffer.lineCount
        if isLast && text.isEmpty {
            if !gathering { state.cutLines = [] }
            state.isGatheringCut = gathering
            return
        }
        edit(&state, .cut, lines: line...(isLast ? line : line + 1), now: now) { buffer in
            buffer.replace(
                from: TextPosition(line: line, column: 0),
                to: isLast ? TextPosition(line: line, column: .max) : TextPosition(line: line + 1, column: 0),
                with: "")
        }
        state.cutLines = (gathering ? state.cutLines : []) + [text]
        state.isGatheringCut = true
    }
}
