extension AppModel {
    /// Where things go on the screen at the current size.
    var layout: ScreenLayout { ScreenLayout(size: size, kind: session.kind) }

    /// Scrolls the editor so its cursor shows in the text area at the current size.
    mutating func keepCursorVisible() {
        guard case .editor(var state) = session else { return }
        let layout = self.layout
        let scroll = state.scrollShowingCursor(width: layout.contentWidth, height: layout.contentHeight)
        guard scroll != state.scroll else { return }
        state.scroll = scroll
        session = .editor(state)
    }
}
