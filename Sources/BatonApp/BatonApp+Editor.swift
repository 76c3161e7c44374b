import FoundationEssentials
import TerminalUI

extension BatonApp {
    /// The editor's keys: typing, Enter, Backspace, Delete, Tab, arrows, Home/End (also Ctrl-A/E),
    /// PgUp/PgDn, Ctrl-arrows by word, Ctrl-Home/End (also Alt-\\ and Alt-/), Shift with any of
    /// them to select, Ctrl-6 (or Alt-A) to set a mark, Ctrl-S save, Ctrl-O save as, Ctrl-Z undo
    /// (also Alt-U), Ctrl-Y redo, Ctrl-F/Ctrl-W search (F3 again), Ctrl-\\ (or Alt-R) replace,
    /// Ctrl-K cut (the selection, or the line), Alt-6 copy, Ctrl-U paste, Ctrl-G go to line, F1 help.
    static func handleEditorKey(_ key: Key, _ state: inout EditorState, _ model: inout AppModel) -> [AppCommand] {
        let page = max(1, model.layout.contentHeight)
        let now = model.now
        let gathering = state.isGatheringCut
        state.isGatheringCut = false
        state.findResult = nil
        if state.isEscapePending {
            state.isEscapePending = false
            // Esc, then a character: what a terminal that sends Alt-U as two reads gives.
            if case .character(let character) = key {
                return handleAltKey(character, &state, &model)
            }
        }
        if case .alt(let character) = key {
            return handleAltKey(character, &state, &model)
        }
        let line = state.buffer.cursor.line
        switch key {
        case .character(let character):
            // Control characters are not text; a pasted one would only show as a picture.
            if character != "\n", character != "\r", character != "\r\n", character != "\t",
               character.asciiValue.map({ $0 >= 0x20 && $0 < 0x7F }) != true,
               character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return []
            }
            dropMark(&state)
            switch character {
            case "\n", "\r", "\r\n":
                edit(&state, .typing, lines: line...line, now: now) { $0.insertNewline() }
            case "\t":
                edit(&state, .typing, lines: line...line, now: now) { $0.insertTab() }
            default:
                edit(&state, .typing, lines: line...line, now: now) { $0.insert(character) }
            }
        case .enter:
            dropMark(&state)
            edit(&state, .typing, lines: line...line, now: now) { $0.insertNewline() }
        case .tab:
            dropMark(&state)
            edit(&state, .typing, lines: line...line, now: now) { $0.insertTab() }
        case .backspace:
            if deleteSelection(&state, now: now) { return [] }
            let first = state.buffer.cursor.column == 0 ? max(0, line - 1) : line
            edit(&state, .backspace, lines: first...line, now: now) { $0.backspace() }
        case .delete:
            if deleteSelection(&state, now: now) { return [] }
            let last = state.buffer.cursor.column == state.buffer.characterCount(ofLine: line)
                ? min(line + 1, state.buffer.lineCount - 1) : line
            edit(&state, .deleteForward, lines: line...last, now: now) { $0.deleteForward() }
        case .control("z"):
            dropMark(&state)
            undo(&state)
        case .control("y"):
            dropMark(&state)
            redo(&state)
        case .escape:
            state.isEscapePending = true
        case .control("^"):
            toggleMark(&state)
        case .control("k"):
            if state.mark != nil {
                let clip = cutSelection(&state, now: now)
                dropMark(&state)
                if let clip {
                    model.clipboard = clip
                    return [.keepClipboard(clip)]
                }
            }
            let before = state.cutLines
            cutLine(&state, gathering: gathering, now: now)
            guard state.cutLines != before || !gathering else { return [] }
            model.clipboard = .lines(state.cutLines)
            return [.keepClipboard(.lines(state.cutLines))]
        case .control("u"):
            dropMark(&state)
            paste(model.clipboard.pasteText, &state, now: now)
        case .control("f"), .control("w"):
            model.overlay = .prompt(.search(last: state.lastSearch, options: state.searchOptions))
        case .control("\\"):
            model.overlay = .prompt(.replace(last: state.lastSearch, options: state.searchOptions))
        case .function(3):
            if let query = state.lastSearch { find(query, &state) }
        case .function(1):
            model.overlay = .help(first: 0)
        case .control("g"):
            model.overlay = .prompt(.goToLine())
        default:
            state.history.seal()  // a cursor move (or any other key) ends a run of typing
            return handleEditorMotion(key, &state, &model, page: page)
        }
        return []
    }

    /// Alt with a character (or Esc, then the character).
    static func handleAltKey(
        _ character: Character, _ state: inout EditorState, _ model: inout AppModel
    ) -> [AppCommand] {
        switch character {
        case "u", "U":
            dropMark(&state)
            undo(&state)
        case "a", "A":
            toggleMark(&state)
        case "6", "^":
            let clip = copySelection(&state)
            model.clipboard = clip
            return [.keepClipboard(clip)]
        case "r", "R":
            model.overlay = .prompt(.replace(last: state.lastSearch, options: state.searchOptions))
        case "n", "N":
            state.display.lineNumbers.toggle()
            state.findResult = state.display.lineNumbers ? "line numbers on" : "line numbers off"
            return [.keepDisplay(state.display)]
        case "s", "S":
            state.display.softWrap.toggle()
            if state.display.softWrap { state.scroll.left = 0 }
            state.findResult = state.display.softWrap ? "soft wrap on" : "soft wrap off"
            return [.keepDisplay(state.display)]
        case "c", "C":
            state.display.constantShow.toggle()
            state.findResult = state.display.constantShow ? "cursor position shown" : "cursor position hidden"
            return [.keepDisplay(state.display)]
        case "m", "M":
            state.display.mouse.toggle()
            state.findResult = state.display.mouse ? "mouse on" : "mouse off"
            return [.keepDisplay(state.display), .mouseReporting(state.display.mouse)]
        case "\\":
            state.history.seal()
            state.buffer.moveToTextStart()
        case "/":
            state.history.seal()
            state.buffer.moveToTextEnd()
        default:
            // Any other Alt-key is not a key of this editor: it types nothing, and the message
            // line says where the keys are.
            model.show("Alt-\(character) does nothing here; F1 lists the keys")
        }
        return []
    }

    /// The keys that move the cursor or save. Shift with a motion key selects (a mark at the
    /// cursor, if none); a motion without Shift ends a selection Shift made.
    private static func handleEditorMotion(
        _ key: Key, _ state: inout EditorState, _ model: inout AppModel, page: Int
    ) -> [AppCommand] {
        var motion: Key.Motion?
        var modifiers: Key.Modifiers = []
        switch key {
        case .up: motion = .up
        case .down: motion = .down
        case .left: motion = .left
        case .right: motion = .right
        case .home, .control("a"): motion = .home
        case .end, .control("e"): motion = .end
        case .pageUp: motion = .pageUp
        case .pageDown: motion = .pageDown
        case .modified(let held, let keys):
            motion = held
            modifiers = keys
        case .control("s"):
            return startSave(state, thenQuit: false, &model)
        case .control("o"):
            model.overlay = .prompt(.saveAs(suggestion: state.filePath ?? state.fileName))
            return []
        default:
            return []
        }
        guard let motion else { return [] }
        if modifiers.contains(.shift) {
            if state.mark == nil {
                state.mark = state.buffer.cursor
                state.isShiftMark = true
            }
        } else if state.isShiftMark {
            dropMark(&state)
        }
        move(motion, byWord: modifiers.contains(.control), &state, page: page)
        return []
    }

    /// Moves the cursor: with Ctrl, left and right go by word and Home and End to the ends of
    /// the text.
    static func move(_ motion: Key.Motion, byWord: Bool, _ state: inout EditorState, page: Int) {
        switch motion {
        case .left: byWord ? state.buffer.moveWordLeft() : state.buffer.moveLeft()
        case .right: byWord ? state.buffer.moveWordRight() : state.buffer.moveRight()
        case .up: state.buffer.moveUp()
        case .down: state.buffer.moveDown()
        case .home: byWord ? state.buffer.moveToTextStart() : state.buffer.moveToLineStart()
        case .end: byWord ? state.buffer.moveToTextEnd() : state.buffer.moveToLineEnd()
        case .pageUp:
            state.buffer.moveUp(by: page)
            state.scroll.top = max(0, state.scroll.top - page)
        case .pageDown:
            state.buffer.moveDown(by: page)
            state.scroll.top = state.scroll.top.addingSaturated(page).clamped(0, max(0, state.buffer.lineCount - page))
        }
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
