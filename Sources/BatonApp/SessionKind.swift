/// Which of Baton's two sessions is running.
public enum SessionKind: Equatable, Sendable, CaseIterable {
    /// A number that goes up and down (`dev.baton.counter`).
    case counter
    /// A small text editor (`dev.baton.editing`).
    case editor
}
