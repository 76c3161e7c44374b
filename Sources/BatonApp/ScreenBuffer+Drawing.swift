import TerminalUI

extension ScreenBuffer {
    /// A box of `width` × `height` at (`x`, `y`) with `title` set into its top edge
    /// ("┌─ Nearby (2) ───┐"); the title is left out when it does not fit.
    mutating func drawBox(title: String, x: Int, y: Int, width: Int, height: Int) {
        let inner = width - 2
        var top = title.columns <= inner ? title : ""
        top += String(repeating: "─", count: max(0, inner - top.columns))
        put("┌" + top + "┐", x: x, y: y)
        for row in (y + 1)..<(y + height - 1) {
            put("│", x: x, y: row)
            put("│", x: x + width - 1, y: row)
        }
        put("└" + String(repeating: "─", count: inner) + "┘", x: x, y: y + height - 1)
    }

    /// Draws a line of text as seen from display column `left`, into `width` columns at
    /// (`x`, `y`). Tabs show as spaces to the next tab stop; a character cut by either edge
    /// shows as blanks, so a wide character is never split. Returns whether some of the line
    /// lies left of `left` (`left`) and whether some lies past the right edge (`right`).
    ///
    /// `startColumn` is the display column `characters` start at: the rest of a line whose
    /// characters before it all end at or before `left` (`TextBuffer.drawStart`), so a long
    /// line scrolled far right is drawn without walking its start; all that matters of what
    /// was skipped is whether it takes any columns, which then lie left of the view.
    ///
    /// `cutLeft` says whether what came before `characters` already lay left of `left` (by
    /// default, whether it took any columns).
    @discardableResult
    mutating func drawScrolled(
        _ characters: some Sequence<Character>, from left: Int, startColumn: Int = 0, cutLeft: Bool? = nil, x: Int, y: Int,
        width: Int, style: Style = .plain
    ) -> (left: Bool, right: Bool) {
        guard width > 0 else { return (false, false) }
        var column = startColumn
        var cutLeft = cutLeft ?? (startColumn > 0)
        for character in characters {
            let before = column
            // A plain character is measured once, for its place and its cell; the rest (tabs,
            // controls shown as pictures, zero-width ones) as the buffer measures them.
            let cell = character == "\t" ? nil : Cell.plain(character, style: style)
            let next = cell.map { before + $0.width } ?? TextBuffer.advance(from: before, over: character)
            column = next
            let start = before - left
            let end = next - left
            if next == before { continue }
            if start < 0 { cutLeft = true }
            if end <= 0 { continue }
            if start >= width { return (cutLeft, true) }
            if start < 0 || end > width || character == "\t" {
                let from = max(start, 0)
                fill(" ", style: style, x: x + from, y: y, width: min(end, width) - from, height: 1)
                if end > width { return (cutLeft, true) }
                continue
            }
            if let cell {
                put(cell, x: x + start, y: y)
            } else {
                put(String(character), x: x + start, y: y, style: style, maxWidth: end - start)
            }
        }
        return (cutLeft, false)
    }

    /// `drawScrolled` of `text` from `start`, a character boundary of it and the place there.
    ///
    /// Printable ASCII and tabs, most of most lines, are drawn from the bytes, a cell each;
    /// from the first byte that is not (or that a byte past ASCII follows, which may join it
    /// into one character), the rest is drawn a `Character` at a time.
    @discardableResult
    mutating func drawScrolled(_ text: String, from left: Int, start: LinePlace, x: Int, y: Int, width: Int) -> (left: Bool, right: Bool) {
        guard width > 0 else { return (false, false) }
        var column = start.column
        var cutLeft = start.column > 0
        var byte = start.utf8
        let ended: (left: Bool, right: Bool)?? = text.utf8.withContiguousStorageIfAvailable { bytes in
            while byte < bytes.count {
                let value = bytes[byte]
                if byte + 1 < bytes.count, bytes[byte + 1] >= 0x80 { return nil }
                let before = column
                let cell = Cell.ascii(value)
                if cell != nil {
                    column += 1
                } else if value == 0x09 {
                    column = TextBuffer.advance(from: column, over: "\t")
                } else {
                    return nil
                }
                byte += 1
                let start = before - left
                let end = column - left
                if start < 0 { cutLeft = true }
                if end <= 0 { continue }
                if start >= width { return (cutLeft, true) }
                if let cell, start >= 0 {
                    put(cell, x: x + start, y: y)
                    continue
                }
                let from = max(start, 0)
                fill(" ", x: x + from, y: y, width: min(end, width) - from, height: 1)
                if end > width { return (cutLeft, true) }
            }
            return (cutLeft, false)
        }
        if let ended, let ended { return ended }
        guard byte > 0 else { return drawScrolled(text, from: left, x: x, y: y, width: width) }
        let rest = text[text.utf8.index(text.startIndex, offsetBy: byte)...]
        return drawScrolled(rest, from: left, startColumn: column, cutLeft: cutLeft, x: x, y: y, width: width)
    }

    /// Writes `text` at (`x`, `y`) cut to `width` columns with "…"; returns the columns used.
    @discardableResult
    mutating func putTruncated(_ text: String, x: Int, y: Int, width: Int, style: Style = .plain) -> Int {
        guard width > 0 else { return 0 }
        return put(text.truncated(toColumns: width), x: x, y: y, style: style, maxWidth: width)
    }

    /// Fills row `y` with blanks in `style`.
    mutating func clearRow(_ y: Int, style: Style = .plain) {
        fill(" ", style: style, x: 0, y: y, width: width, height: 1)
    }
}
