/// How the editor shows its text, toggled as in nano and carried with the session: a line
/// number before each line (Alt-N), and long lines wrapped at the window's edge (Alt-S)
/// instead of scrolled sideways.
public struct EditorDisplay: Equatable, Sendable {
    public var lineNumbers = false
    public var softWrap = false

    public init(lineNumbers: Bool = false, softWrap: Bool = false) {
        self.lineNumbers = lineNumbers
        self.softWrap = softWrap
    }
}
