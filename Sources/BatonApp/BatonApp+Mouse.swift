import TerminalUI

extension BatonApp {
    /// A press in the text puts the cursor there (past a line's end: at its end; below the
    /// text: at the end of the text); the wheel moves it three lines, and the view with it.
    /// Only in the editor, with nothing over it, and never while following.
    static func handleMouse(_ mouse: Mouse, _ model: inout AppModel) -> [AppCommand] {
        guard model.overlay == nil, model.live?.following == nil, case .editor(var state) = model.session else { return [] }
        let layout = model.layout
        state.history.seal()
        switch mouse.action {
        case .wheelUp:
            state.buffer.moveUp(by: 3)
        case .wheelDown:
            state.buffer.moveDown(by: 3)
        case .press:
            let height = layout.contentHeight
            guard mouse.y >= layout.contentTop, mouse.y < layout.contentTop + height else { return [] }
            let areaWidth = layout.contentWidth
            let gutter = state.gutterWidth(areaWidth: areaWidth)
            let scroll = state.scrollShowingCursor(width: areaWidth, height: height)
            let rows = EditorView.visualRows(state, scroll: scroll, top: layout.contentTop, textWidth: areaWidth - gutter, height: height)
            if let row = rows.first(where: { $0.y == mouse.y }) {
                let column = TextBuffer.column(in: state.buffer.line(row.line), atDisplayColumn: max(0, mouse.x - gutter) + row.left)
                state.buffer.move(to: TextPosition(line: row.line, column: column))
            } else {
                state.buffer.moveToTextEnd()
            }
        }
        if state.isShiftMark { dropMark(&state) }
        model.session = .editor(state)
        return []
    }
}
