extension AppModel {
    /// An empty editor, left in the session while its state is changed elsewhere.
    private static let editorInTransit = EditorState()

    /// The editor's state, taken out of the session for a change: an empty editor stands in
    /// for it until `session = .editor(state)` puts it back. A copy left in the session would
    /// share the state's storage, and the first write to the text (the rope's blocks and lines)
    /// or to the history would copy it all; on a 16 MB buffer that is most of a key's update.
    /// Nil, with the session unchanged, when it is not an editor.
    mutating func takeEditorState() -> EditorState? {
        guard case .editor(let state) = session else { return nil }
        session = .editor(Self.editorInTransit)
        return state
    }
}
