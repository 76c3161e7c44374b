/// What the terminal is doing: counting or editing.
public enum Session: Equatable, Sendable {
    /// A counter session.
    case counter(CounterState)
    /// An editing session.
    case editor(EditorState)

    /// Which kind of session this is.
    public var kind: SessionKind {
        switch self {
        case .counter: .counter
        case .editor: .editor
        }
    }

    /// The editor's state, when this is an editor.
    public var editorState: EditorState? {
        if case .editor(let state) = self { state } else { nil }
    }

    /// The counter's state, when this is a counter.
    public var counterState: CounterState? {
        if case .counter(let state) = self { state } else { nil }
    }
}
