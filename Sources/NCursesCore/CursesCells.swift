import CNCurses
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Grapheme clusters into ncurses cells, the same way for every Baton terminal: each cell at its
/// own position in exactly the columns the model gives it, whole clusters (spacing scalars
/// included), and clusters too long for one cell written again after `doupdate`.
package enum CursesCells {
    /// Writes `grapheme`, `width` columns wide, at row `y`, column `x` of a window `columns`
    /// wide. A cell cut by the right edge becomes a blank; a grapheme libc gives another width
    /// (or none) becomes U+FFFD padded with blanks, so that ncurses' idea of the row cannot drift
    /// from the model's. Lock held, screen set.
    package static func put(
        _ grapheme: String, width: Int, x: Int, y: Int, columns: Int,
        attributes: attr_t, pair: Int32, on window: UnsafeMutablePointer<WINDOW>
    ) {
        guard x < columns else { return }
        func write(_ codepoints: [wchar_t], at x: Int) {
            // Writing the bottom-right cell reports ERR (the cursor cannot advance)
            // although the cell is written, so the result is not checked.
            _ = codepoints.withUnsafeBufferPointer { buffer in
                baton_put_cluster_pair(window, Int32(y), Int32(x), buffer.baseAddress, Int32(buffer.count), attributes, pair)
            }
        }
        guard x + width <= columns else {
            write([0x20], at: x)
            return
        }
        if grapheme.utf8.count == 1, let byte = grapheme.utf8.first, byte >= 0x20, byte < 0x7F {
            // Most cells: one column everywhere, no cluster to build.
            var codepoint = wchar_t(byte)
            _ = baton_put_cluster_pair(window, Int32(y), Int32(x), &codepoint, 1, attributes, pair)
            return
        }
        if let (first, second) = regionalIndicatorPair(grapheme), width == 2 {
            // A flag: ncurses (libc) sees two one-column letters, terminals draw one
            // two-column flag or two letters. Either way the columns agree.
            write([first], at: x)
            write([second], at: x + 1)
            return
        }
        var (codepoints, glyphColumns) = glyph(for: grapheme)
        if glyphColumns < 1 || glyphColumns > width {
            codepoints = [0xFFFD]
            glyphColumns = 1
        }
        write(codepoints, at: x)
        for padding in (x + glyphColumns)..<max(x + glyphColumns, x + width) {
            write([0x20], at: padding)
        }
    }

    /// The code points ncurses keeps in one cell for `grapheme` — the whole
    /// cluster, spacing scalars included (an Indic conjunct, a skin tone, a ZWJ
    /// sequence), cut to `CCHARW_MAX` for longer ones and then without a
    /// dangling zero-width joiner — and the columns libc's `wcwidth` gives its
    /// first scalar, which is what ncurses reserves for the cell.
    package static func glyph(for grapheme: String) -> (codepoints: [wchar_t], columns: Int) {
        let scalars = grapheme.unicodeScalars
        guard let first = scalars.first else { return ([0x20], 1) }
        let limit = max(1, Int(baton_cchar_max()))
        var codepoints: [wchar_t] = scalars.prefix(limit).map { wchar_t(bitPattern: $0.value) }
        while codepoints.count > 1, codepoints.last == 0x200D {
            codepoints.removeLast()
        }
        return (codepoints, Int(baton_wcwidth(wchar_t(bitPattern: first.value))))
    }

    /// The two code points of a regional-indicator flag (🇺🇸), when libc gives each one column.
    package static func regionalIndicatorPair(_ grapheme: String) -> (wchar_t, wchar_t)? {
        let scalars = Array(grapheme.unicodeScalars)
        let indicators: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF
        guard scalars.count == 2, indicators.contains(scalars[0].value), indicators.contains(scalars[1].value) else {
            return nil
        }
        let pair = (wchar_t(bitPattern: scalars[0].value), wchar_t(bitPattern: scalars[1].value))
        guard baton_wcwidth(pair.0) == 1, baton_wcwidth(pair.1) == 1 else { return nil }
        return pair
    }

    /// Whether `grapheme`, drawn `width` columns wide from column `x` of `columns`, is longer
    /// than one cell holds and `put` wrote it whole-looking: one `writeWhole` must write again.
    package static func isLong(_ grapheme: String, width: Int, x: Int, columns: Int) -> Bool {
        guard width >= 1, x + width <= columns, grapheme.unicodeScalars.count > Int(baton_cchar_max()) else { return false }
        let glyphColumns = glyph(for: grapheme).columns
        return glyphColumns >= 1 && glyphColumns <= width
    }

    /// A cell holds at most `CCHARW_MAX` code points, so ncurses writes a longer cluster (a
    /// family 👨‍👩‍👧‍👦 is seven) cut. After `doupdate` has written the frame, each such cluster
    /// (`isLong`) is written again whole where it stands, in as many columns as its cut form
    /// took: the terminal's `cup` (through `tiparm`) to its cell, its UTF-8, and `cup` back to
    /// where ncurses left the cursor, so ncurses' idea of the terminal stays true. All of them
    /// at every draw: ncurses may write a cell again to spare a cursor move. Lock held, screen set.
    package static func writeWhole(
        _ clusters: [(row: Int, column: Int, grapheme: String)], window: UnsafeMutablePointer<WINDOW>,
        output: UnsafeMutablePointer<FILE>
    ) {
        var bytes: [UInt8] = []
        for cluster in clusters {
            guard let move = baton_cursor_address(Int32(cluster.row), Int32(cluster.column)) else { continue }
            bytes += Terminfo.removingPadding(Array(String(cString: move).utf8))
            bytes += cluster.grapheme.utf8
        }
        guard !bytes.isEmpty else { return }
        var cursorY: Int32 = 0
        var cursorX: Int32 = 0
        baton_getyx(window, &cursorY, &cursorX)
        guard let back = baton_cursor_address(cursorY, cursorX) else { return }
        bytes += Terminfo.removingPadding(Array(String(cString: back).utf8))
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, output) }
        fflush(output)
    }
}
