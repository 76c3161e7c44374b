/// Something that happened at the terminal.
public enum TerminalEvent: Hashable, Sendable {
    /// A key was pressed.
    case key(Key)
    /// The terminal now has this size; the next frame should be drawn for it.
    case resize(TerminalSize)
    /// Text the terminal pasted (bracketed paste: between its paste markers), whole and as
    /// typed: no key bindings apply inside it, so a `q`, a control character or a line break
    /// in it is text.
    case paste(String)
    /// The mouse was pressed or its wheel turned (reported only while `setMouseReporting(true)`).
    case mouse(Mouse)
}
