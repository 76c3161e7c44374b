extension ScreenBuffer {
    /// The cells that differ from `old`, row by row, left to right.
    ///
    /// When the sizes differ every cell is a change. A backend writes each change
    /// and skips continuations, whose wide grapheme is always among the changes too.
    public func diff(from old: ScreenBuffer) -> [CellChange] {
        var changes: [CellChange] = []
        let sameSize = old.width == width && old.height == height
        for y in 0..<height {
            for x in 0..<width {
                let index = y * width + x
                let cell = cells[index]
                if !sameSize || old.cells[index] != cell {
                    changes.append(CellChange(x: x, y: y, cell: cell))
                }
            }
        }
        return changes
    }
}
