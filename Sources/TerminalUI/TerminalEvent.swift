/// Something that happened at the terminal.
public enum TerminalEvent: Hashable, Sendable {
    /// A key was pressed.
    case key(Key)
    /// The terminal now has this size; the next frame should be drawn for it.
    case resize(TerminalSize)
}
