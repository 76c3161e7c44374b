import TerminalUI

extension BatonApp {
    /// Routes a key: to the open overlay, else the keys that work everywhere, else the session.
    static func handleKey(_ key: Key, _ model: inout AppModel) -> [AppCommand] {
        if let overlay = model.overlay {
            return handleOverlayKey(key, overlay, &model)
        }
        switch key {
        case .control("n"):
            openNearby(&model)
            return []
        case .control("q"), .control("c"), .control("x"):
            return requestQuit(&model)
        default:
            break
        }
        switch model.session {
        case .counter(var state):
            let commands = handleCounterKey(key, &state, &model)
            if case .counter = model.session { model.session = .counter(state) }
            return commands
        case .editor:
            guard var state = model.takeEditorState() else { return [] }
            let commands = handleEditorKey(key, &state, &model)
            if case .editor = model.session { model.session = .editor(state) }
            return commands
        }
    }

    /// Ctrl-Q (or Ctrl-X, as in nano): quits at once, or asks first when the editor has unsaved changes.
    static func requestQuit(_ model: inout AppModel) -> [AppCommand] {
        if case .editor(let state) = model.session, state.isDirty {
            model.overlay = .confirm(.quitWithUnsavedChanges)
            return []
        }
        return quit(&model)
    }

    /// Leaves now.
    static func quit(_ model: inout AppModel) -> [AppCommand] {
        model.overlay = nil
        model.isQuitting = true
        return [.quit]
    }
}
