/// What covers part of the screen and takes the keys until it is answered or closed.
public enum Overlay: Equatable, Sendable {
    /// The list of nearby activities; `selectedID` names the highlighted one (nil: the first).
    case nearby(selectedID: String?)
    /// A y/n (or y/n/c) question on the prompt line.
    case confirm(Confirmation)
    /// A typed answer on the prompt line.
    case prompt(TextPrompt)
    /// The keys (F1), from entry `first` on. Where they do not all fit, ↑ ↓ PgUp PgDn scroll them;
    /// any other key closes them.
    case help(first: Int)
    /// Replacing a search's matches one at a time: y, n, a(ll), Esc.
    case replacing(ReplaceState)
    /// A continue under way: Esc cancels it, other keys wait (the session is about to be replaced).
    case continuing(ContinueState)
}
