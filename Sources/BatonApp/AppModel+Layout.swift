extension AppModel {
    /// Where things go on the screen at the current size.
    var layout: ScreenLayout { ScreenLayout(size: size, kind: session.kind) }

    /// Scrolls the editor so its cursor shows in the text area at the current size.
    /// After a resize, the view first scrolls back as far left as it can while the cursor
    /// stays in view, so a window that grew shows its lines from their start again.
    mutating func keepCursorVisible(afterResize: Bool = false) {
        guard case .editor(var state) = session else { return }
        let layout = self.layout
        let before = state.scroll
        if afterResize { state.scroll.left = 0 }
        let scroll = state.scrollShowingCursor(width: layout.contentWidth, height: layout.contentHeight)
        guard scroll != before else { return }
        state.scroll = scroll
        session = .editor(state)
    }
}
