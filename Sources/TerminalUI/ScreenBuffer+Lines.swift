extension ScreenBuffer {
    /// Each row as a string, trailing spaces kept; a wide grapheme's continuation adds nothing.
    public func lines() -> [String] {
        (0..<height).map(line(at:))
    }

    /// Row `y` as a string, as in `lines()`; empty outside the buffer.
    public func line(at y: Int) -> String {
        guard y >= 0, y < height else { return "" }
        var text = ""
        for x in 0..<width {
            text += cells[y * width + x].grapheme
        }
        return text
    }
}
