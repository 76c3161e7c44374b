import HandoffWire
/// Why a name or path typed at the "Save as: " prompt cannot be used.
public enum FileNameProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing (or only spaces) was typed.
    case empty
    /// The name contains a `/`; the prompt takes a name in the current directory, not a path.
    case containsSlash(String)
    /// `.` and `..` name directories, not files.
    case reserved(String)
    /// A path that names a folder (it ends in `/`, `.` or `..`), not a file in one.
    case folder(String)
    /// The name contains a control, bidi or invisible character (a `PeerText.Hazard` that
    /// `PeerText.visible` would show), which no file name should: `notes\u{200B}.txt` would
    /// look like `notes.txt`.
    case containsControlCharacter
    /// The name is longer than a file name may be.
    case tooLong(bytes: Int, limit: Int)

    /// A short sentence for the prompt line.
    public var description: String {
        switch self {
        case .empty:
            "Type a file name."
        case .containsSlash:
            "A name, not a path: no “/”."
        case .reserved(let name):
            "“\(name)” is a directory name."
        case .folder(let path):
            "“\(path)” names a folder; add a file name."
        case .containsControlCharacter:
            "No control or invisible characters in a name."
        case .tooLong(let bytes, let limit):
            "The name is \(bytes) bytes, over the \(limit)-byte limit."
        }
    }
}
