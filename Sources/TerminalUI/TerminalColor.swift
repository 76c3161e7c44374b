/// One of the eight basic terminal colours; raw values match curses' `COLOR_*` numbers.
public enum TerminalColor: Int, CaseIterable, Hashable, Sendable {
    case black = 0
    case red
    case green
    case yellow
    case blue
    case magenta
    case cyan
    case white
}
