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
    /// Alt (Meta) with a character: the terminal sends Esc and the character together, so a
    /// backend reports `.alt` when the two arrive in one read (a person's Esc and a key after
    /// it come in two).
    case alt(Character)
    /// A control combination, named by its lowercase letter: Ctrl-S is `.control("s")`.
    /// Ctrl-@ (NUL, also Ctrl-Space) is `.control("@")`; the others outside a–z are
    /// `\`, `]`, `^` and `_`.
    case control(Character)
    /// Function key F*n*.
    case function(Int)
    /// An arrow, Home, End, Page Up or Page Down with Shift, Alt or Ctrl held (xterm's
    /// `ESC [1;5D` for Ctrl-Left, and the like). Without a modifier they are `.left` and the others.
    case modified(Motion, Modifiers)
    /// Something the backend recognised as a key but Baton has no name for (the backend's code).
    case unknown(Int)

    /// The keys that take modifiers as `.modified`.
    public enum Motion: Hashable, Sendable, CaseIterable {
        case up, down, left, right, home, end, pageUp, pageDown
    }

    /// Shift, Alt and Ctrl, as held with a `Motion` key.
    public struct Modifiers: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let shift = Modifiers(rawValue: 1)
        public static let alt = Modifiers(rawValue: 2)
        public static let control = Modifiers(rawValue: 4)
    }

    /// `motion` with nothing held, as the plain key (`.left`, `.home`, …).
    public static func plain(_ motion: Motion) -> Key {
        switch motion {
        case .up: .up
        case .down: .down
        case .left: .left
        case .right: .right
        case .home: .home
        case .end: .end
        case .pageUp: .pageUp
        case .pageDown: .pageDown
        }
    }
}
