import TerminalUI

extension BatonApp {
    /// The editor's keys: typing, Enter, Backspace, Delete, Tab, arrows, Home/End (also Ctrl-A/E),
    /// PgUp/PgDn, Ctrl-S save, Ctrl-O save as.
    static func handleEditorKey(_ key: Key, _ state: inout EditorState, _ model: inout AppModel) -> [AppCommand] {
        let page = max(1, model.layout.contentHeight)
        switch key {
        case .character(let character):
            switch character {
            case "\n", "\r", "\r\n":
                state.buffer.insertNewline()
            case "\t":
                state.buffer.insertTab()
            default:
                // Control characters are not text; a pasted one would only show as a picture.
                guard !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    return []
                }
                state.buffer.insert(character)
            }
            state.isDirty = true
        case .enter:
            state.buffer.insertNewline()
            state.isDirty = true
        case .tab:
            state.buffer.insertTab()
            state.isDirty = true
        case .backspace:
            if state.buffer.backspace() { state.isDirty = true }
        case .delete:
            if state.buffer.deleteForward() { state.isDirty = true }
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
}
