/// A save the app asked the Program for and has not heard back about.
public struct PendingSave: Equatable, Sendable {
    /// Where it is being written.
    public var path: String
    /// The text being written; the editor is clean after the save only if it still holds this.
    public var text: String
    /// Quit once it is saved (the answer to "Unsaved changes — save?").
    public var thenQuit: Bool

    /// A pending save of `text` to `path`.
    public init(path: String, text: String, thenQuit: Bool) {
        self.path = path
        self.text = text
        self.thenQuit = thenQuit
    }
}
