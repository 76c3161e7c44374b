extension ScreenBuffer {
    /// A buffer of `size` holding this one's top-left part; a wide grapheme cut
    /// by the new right edge becomes a blank.
    public func resized(to size: TerminalSize) -> ScreenBuffer {
        var result = ScreenBuffer(size: size)
        let rows = min(height, result.height)
        let columns = min(width, result.width)
        for y in 0..<rows {
            var x = 0
            while x < columns {
                let cell = self[x: x, y: y]
                if cell.isContinuation {
                    x += 1
                    continue
                }
                if x + cell.width > columns {
                    result.store(.blank(style: cell.style), x: x, y: y)
                } else {
                    result.store(cell, x: x, y: y)
                }
                x += max(cell.width, 1)
            }
        }
        return result
    }
}
