/// How the editor shows its text, toggled as in nano and carried with the session: a line
/// number before each line (Alt-N), and long lines wrapped at the window's edge (Alt-S)
/// instead of scrolled sideways.
public struct EditorDisplay: Equatable, Sendable {
    public var lineNumbers = false
    public var softWrap = false
    /// Whether the mouse places the cursor and the wheel scrolls (Alt-M, as nano's). Off by
    /// default, as in nano: while on, the terminal's own selection needs Shift. Kept for the
    /// next session, not sent with the session.
    public var mouse = false

    public init(lineNumbers: Bool = false, softWrap: Bool = false, mouse: Bool = false) {
        self.lineNumbers = lineNumbers
        self.softWrap = softWrap
        self.mouse = mouse
    }
}
