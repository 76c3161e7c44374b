/// Where the terminal cursor is shown: column `x`, row `y`, from the top left.
public struct CursorPosition: Hashable, Sendable {
    /// Column, from 0.
    public var x: Int
    /// Row, from 0.
    public var y: Int

    /// The cursor at column `x`, row `y`.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}
