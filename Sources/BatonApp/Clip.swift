/// What the clipboard that follows the person holds: whole lines, as Ctrl-K cuts them
/// (each pasted with its line break), or the text of a selection (pasted as it is).
public enum Clip: Equatable, Sendable {
    case lines([String])
    case text(String)

    /// Nothing kept.
    public static let empty = Clip.lines([])

    /// What Ctrl-U inserts.
    public var pasteText: String {
        switch self {
        case .lines(let lines): lines.map { $0 + "\n" }.joined()
        case .text(let text): text
        }
    }
}
