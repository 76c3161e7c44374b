/// A 3×5-pixel font for the counter's big number, each pixel two `█` cells wide so the
/// digits look square on a terminal.
enum BlockDigits {
    /// Rows in a glyph.
    static let height = 5
    /// Columns in a glyph.
    static let glyphWidth = 6
    /// Columns between glyphs.
    static let gap = 2

    /// Glyph pixels, `#` on, for the characters of a printed `Int`.
    static let glyphs: [Character: [String]] = [
        "0": ["###", "# #", "# #", "# #", "###"],
        "1": [" # ", "## ", " # ", " # ", "###"],
        "2": ["###", "  #", "###", "#  ", "###"],
        "3": ["###", "  #", "###", "  #", "###"],
        "4": ["# #", "# #", "###", "  #", "  #"],
        "5": ["###", "#  ", "###", "  #", "###"],
        "6": ["###", "#  ", "###", "# #", "###"],
        "7": ["###", "  #", "  #", "  #", "  #"],
        "8": ["###", "# #", "###", "# #", "###"],
        "9": ["###", "# #", "###", "  #", "###"],
        "-": ["   ", "   ", "###", "   ", "   "],
    ]

    /// Columns `text` takes in block digits.
    static func width(of text: String) -> Int {
        text.isEmpty ? 0 : text.count * glyphWidth + (text.count - 1) * gap
    }

    /// The `height` rows of `text` in block digits, nil when a character has no glyph.
    static func rows(for text: String) -> [String]? {
        var rows = Array(repeating: "", count: height)
        for (index, character) in text.enumerated() {
            guard let glyph = glyphs[character] else { return nil }
            for row in 0..<height {
                if index > 0 { rows[row] += String(repeating: " ", count: gap) }
                rows[row] += glyph[row].map { $0 == "#" ? "██" : "  " }.joined()
            }
        }
        return rows
    }
}
