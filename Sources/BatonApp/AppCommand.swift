/// Something `BatonApp.update` asks the Program to do; the answers come back as `AppMessage`s.
public enum AppCommand: Equatable, Sendable {
    /// The session's published state (type, title or userInfo) changed: mark the activity needsSave.
    /// Not sent for `AppMessage.continued`, after which the Program starts a new activity itself.
    case publish
    /// Continue this nearby activity; answered by `.continued` or `.continueFailed`.
    case continueActivity(id: String)
    /// Write `text` to `path` atomically; answered by `.fileSaved`, `.fileSaveFailed` or,
    /// unless `replaceExisting`, `.saveNeedsConfirmation` when another file is there.
    case saveFile(path: String, text: String, replaceExisting: Bool)
    /// Leave: withdraw the activity and restore the terminal.
    case quit
}
