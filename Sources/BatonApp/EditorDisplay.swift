/// How the editor shows its text, toggled as in nano and carried with the session: a line
/// number before each line (Alt-N), long lines wrapped at the window's edge (Alt-S) instead of
/// scrolled sideways, and the cursor's line and column in the title at all times (Alt-C, nano's
/// `constantshow`).
public struct EditorDisplay: Equatable, Sendable {
    public var lineNumbers = false
    public var softWrap = false
    /// Whether the title shows the cursor's line and column. Off by default, as in nano: a
    /// position that changes with every key makes the terminal redraw the title and move its
    /// cursor there and back on every key, which costs a typed key about a sixth of its work
    /// (BENCHMARKS.md, "The cursor's position on request").
    public var constantShow = false
    /// Whether the mouse places the cursor and the wheel scrolls (Alt-M, as nano's). Off by
    /// default, as in nano: while on, the terminal's own selection needs Shift. Kept for the
    /// next session, not sent with the session.
    public var mouse = false

    public init(lineNumbers: Bool = false, softWrap: Bool = false, constantShow: Bool = false, mouse: Bool = false) {
        self.lineNumbers = lineNumbers
        self.softWrap = softWrap
        self.constantShow = constantShow
        self.mouse = mouse
    }
}
