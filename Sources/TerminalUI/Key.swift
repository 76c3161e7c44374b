/// A key press, decoded from the terminal's input.
public enum Key: Hashable, Sendable {
    /// A printable character (a whole grapheme cluster when it arrived in one read).
    case character(Character)
    /// Return or Enter (also Ctrl-M and Ctrl-J).
    case enter
    /// Backspace (DEL, Ctrl-H or the terminal's backspace key).
    case backspace
    /// The forward-delete key.
    case delete
    /// Tab (also Ctrl-I).
    case tab
    /// Shift-Tab.
    case backTab
    /// A lone Escape.
    case escape
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Home.
    case home
    /// End.
    case end
    /// Page Up.
    case pageUp
    /// Page Down.
    case pageDown
    /// A control combination, named by its lowercase letter: Ctrl-S is `.control("s")`.
    /// Ctrl-@ (NUL, also Ctrl-Space) is `.control("@")`; the others outside a–z are
    /// `\`, `]`, `^` and `_`.
    case control(Character)
    /// Function key F*n*.
    case function(Int)
    /// Something the backend recognised as a key but Baton has no name for (the backend's code).
    case unknown(Int)
}
