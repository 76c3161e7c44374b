extension BatonApp {
    /// Ctrl-S: saves to the editor's save path, or asks for a name when it has none.
    static func startSave(_ state: EditorState, thenQuit: Bool, _ model: inout AppModel) -> [AppCommand] {
        guard let path = state.savePath else {
            model.overlay = .prompt(.saveAs(suggestion: state.fileName, thenQuit: thenQuit))
            return []
        }
        return save(state, to: path, thenQuit: thenQuit, &model)
    }

    /// Asks the Program to write the editor's text to `path`, not replacing another file: the
    /// file the editor read or last saved, unchanged since, is its own and is replaced quietly.
    static func save(_ state: EditorState, to path: String, thenQuit: Bool, _ model: inout AppModel) -> [AppCommand] {
        let text = state.buffer.text
        model.pendingSave = PendingSave(path: path, text: text, thenQuit: thenQuit)
        let expecting = path == state.filePath ? state.disk : nil
        return [.saveFile(path: path, text: state.lineEnding.encode(text), replaceExisting: false, expecting: expecting)]
    }

    /// The file is written: the editor now belongs to it, and is clean unless edited since.
    static func fileSaved(path: String, stamp: FileStamp?, isReadOnly: Bool = false, _ model: inout AppModel) -> [AppCommand] {
        let pending = model.pendingSave
        model.pendingSave = nil
        if let pending, case .editor(var state) = model.session {
            state.filePath = path
            state.disk = stamp
            // A file of its own now: the hints it was continued with are spent.
            state.pathHint = nil
            state.digestHint = nil
            // The title's [read-only] is the saved file's: saved as a file of one's own, it goes.
            state.isReadOnly = isReadOnly
            state.fileName = FileNames.lastComponent(of: path) ?? path
            state.isDirty = state.buffer.text != pending.text
            model.session = .editor(state)
        }
        model.show("Saved \(path)")
        if pending?.thenQuit == true { return quit(&model) }
        return []
    }

    /// The file could not be written: say why, and stay (a pending quit is called off).
    static func fileSaveFailed(reason: String, _ model: inout AppModel) -> [AppCommand] {
        model.pendingSave = nil
        model.show("Not saved: \(reason)", kind: .problem)
        return []
    }

    /// Another file is at the path, or the editor's file changed on disk: ask before replacing it.
    static func saveNeedsConfirmation(path: String, changedOnDisk: Bool, _ model: inout AppModel) -> [AppCommand] {
        guard case .editor = model.session else {
            model.pendingSave = nil
            return []
        }
        model.overlay = .confirm(changedOnDisk ? .fileChangedOnDisk(path: path) : .replaceFile(path: path))
        return []
    }

    /// The file at the path is read-only: ask before writing it anyway.
    static func saveReadOnly(path: String, _ model: inout AppModel) -> [AppCommand] {
        guard case .editor = model.session else {
            model.pendingSave = nil
            return []
        }
        model.overlay = .confirm(.replaceReadOnlyFile(path: path))
        return []
    }
}
