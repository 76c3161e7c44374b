import TerminalUI

extension String {
    /// Columns this text takes as `ScreenBuffer` draws it.
    var columns: Int {
        // Titles and the status bar, measured on every key, are mostly ASCII and `·`: one
        // column a scalar there (`CharacterWidth.isNarrowAlone`), with no segmenting, as
        // `ScreenBuffer.put` draws them.
        // Printable ASCII, the title's usual text: a column a byte, read where the bytes lie.
        let ascii = utf8.withContiguousStorageIfAvailable { bytes in bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
        if ascii == true { return utf8.count }
        let scalars = unicodeScalars
        if scalars.allSatisfy(CharacterWidth.isNarrowAlone) { return scalars.count }
        // A hint's "↪" and "—" among them: only those characters are segmented and measured.
        var total = 0
        for piece in DrawnPieces(self) {
            switch piece {
            case .narrow: total += 1
            case .character(let character): total += TextBuffer.columns(of: character)
            }
        }
        return total
    }

    /// This text cut to at most `width` columns, ending in "…" when anything was cut.
    func truncated(toColumns width: Int) -> String {
        guard width > 0 else { return "" }
        if columns <= width { return self }
        var result = ""
        var used = 0
        for character in self {
            let next = used + TextBuffer.columns(of: character)
            if next > width - 1 { break }
            result.append(character)
            used = next
        }
        return result + "…"
    }

    /// This text cut from the left to at most `width` columns, starting with "…" when anything
    /// was cut: a path keeps its end, where the file name is.
    func truncatedFromLeft(toColumns width: Int) -> String {
        guard width > 0 else { return "" }
        if columns <= width { return self }
        var kept: [Character] = []
        var used = 0
        for character in reversed() {
            let next = used + TextBuffer.columns(of: character)
            if next > width - 1 { break }
            kept.append(character)
            used = next
        }
        return "…" + String(kept.reversed())
    }

    /// This text padded with spaces to `width` columns (unchanged when it is as wide or wider).
    func padded(toColumns width: Int) -> String {
        let missing = width - columns
        return missing > 0 ? self + String(repeating: " ", count: missing) : self
    }

    /// This text broken into lines of at most `width` columns, at spaces where possible.
    func wrapped(toColumns width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        for word in split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            let candidate = line.isEmpty ? word : line + " " + word
            if candidate.columns <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = ""
            var rest = Substring(word)
            while String(rest).columns > width {
                var piece = ""
                var used = 0
                while let character = rest.first {
                    let next = used + TextBuffer.columns(of: character)
                    if next > width && !piece.isEmpty { break }
                    piece.append(character)
                    used = next
                    rest = rest.dropFirst()
                    if next >= width { break }
                }
                lines.append(piece)
            }
            line = String(rest)
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
