/// A cell that differs between two frames, at column `x` of row `y`.
public struct CellChange: Hashable, Sendable {
    /// Column, from 0 at the left.
    public let x: Int
    /// Row, from 0 at the top.
    public let y: Int
    /// What the cell holds now; a continuation needs no output of its own.
    public let cell: Cell

    /// A change at (`x`, `y`) to `cell`.
    public init(x: Int, y: Int, cell: Cell) {
        self.x = x
        self.y = y
        self.cell = cell
    }
}
