import TerminalUI

extension String {
    /// Columns this text takes as `ScreenBuffer` draws it.
    var columns: Int {
        // Titles and the status bar, measured on every key, are mostly ASCII and `·`: one
        // column a scalar there (`CharacterWidth.isNarrowAlone`), with no segmenting, as
        // `ScreenBuffer.put` draws them.
        let scalars = unicodeScalars
        if scalars.allSatisfy(CharacterWidth.isNarrowAlone) { return scalars.count }
        // A hint's "↪" and "—" among them: a one-column scalar followed by another, or by
        // nothing, is still a grapheme of its own (none of them joins a neighbour), one column;
        // only the characters around the others are segmented and measured.
        var total = 0
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let next = scalars.index(after: index)
            if CharacterWidth.isNarrowAlone(scalars[index]), next == scalars.endIndex || CharacterWidth.isNarrowAlone(scalars[next]) {
                total += 1
                index = next
                continue
            }
            total += TextBuffer.columns(of: self[index])
            index = self.index(after: index)
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
