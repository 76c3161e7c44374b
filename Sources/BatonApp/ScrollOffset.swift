/// How far the editor's text area is scrolled: the first line shown and the first display column shown.
public struct ScrollOffset: Equatable, Sendable {
    /// The index of the line at the top of the text area.
    public var top: Int
    /// The display column (not character index) at the left edge of the text area.
    public var left: Int
    /// With soft wrap: how many of line `top`'s rows are above the text area (a line taller
    /// than the area shows from the row the cursor needs). 0 otherwise.
    public var topRow: Int

    /// An offset of `top` lines and `left` columns; the default shows the start of the text.
    public init(top: Int = 0, left: Int = 0, topRow: Int = 0) {
        self.top = top
        self.left = left
        self.topRow = topRow
    }
}
