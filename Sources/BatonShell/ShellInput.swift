/// Shift, Alt and Ctrl held with a key or a mouse event; the bits libvterm takes.
public struct ShellModifiers: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let shift = ShellModifiers(rawValue: 1)
    public static let alt = ShellModifiers(rawValue: 2)
    public static let control = ShellModifiers(rawValue: 4)
    public static let all: ShellModifiers = [.shift, .alt, .control]
}

/// A key that is not a character.
public enum ShellKey: Hashable, Sendable {
    case enter, tab, backspace, escape
    case up, down, left, right
    case insert, delete, home, end, pageUp, pageDown
    /// F1 to F63.
    case function(Int)

    /// Its name on the wire (docs/PROTOCOL.md section 20).
    public var name: String {
        switch self {
        case .enter: "enter"
        case .tab: "tab"
        case .backspace: "backspace"
        case .escape: "escape"
        case .up: "up"
        case .down: "down"
        case .left: "left"
        case .right: "right"
        case .insert: "insert"
        case .delete: "delete"
        case .home: "home"
        case .end: "end"
        case .pageUp: "pageUp"
        case .pageDown: "pageDown"
        case .function(let n): "f\(n)"
        }
    }

    /// The key named `name`; nil for a name the page does not give.
    public init?(name: String) {
        let plain: [String: ShellKey] = [
            "enter": .enter, "tab": .tab, "backspace": .backspace, "escape": .escape, "up": .up, "down": .down,
            "left": .left, "right": .right, "insert": .insert, "delete": .delete, "home": .home, "end": .end,
            "pageUp": .pageUp, "pageDown": .pageDown,
        ]
        if let key = plain[name] {
            self = key
        } else if name.hasPrefix("f"), let n = Int(name.dropFirst()), (1...63).contains(n), "f\(n)" == name {
            self = .function(n)
        } else {
            return nil
        }
    }
}

/// What a driving terminal sends the session: keys as keys, not bytes, so the program gets
/// them encoded the way it asked for (application cursor keys, bracketed paste, its mouse
/// protocol), whatever the terminal they were typed on.
public enum ShellInput: Hashable, Sendable {
    /// Characters typed, each with `modifiers` (Ctrl-C is "c" with `.control`).
    case text(String, modifiers: ShellModifiers)
    case key(ShellKey, modifiers: ShellModifiers)
    /// Text the terminal pasted, whole.
    case paste(String)
    /// A mouse event at a cell: `button` 0 for a move, 1–3 left, middle, right, 4 and 5 the wheel.
    case mouse(row: Int, column: Int, button: Int, pressed: Bool, modifiers: ShellModifiers)
}
