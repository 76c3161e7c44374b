import PropertyList

/// A screen update's dictionary (docs/PROTOCOL.md section 20): rows as runs of cells that share
/// a style and a width, the styles used listed once.
extension ShellScreenUpdate {
    var dictionary: [String: PropertyListValue] {
        var styles: [ShellStyle] = []
        var styleIndex: [ShellStyle: Int] = [:]
        func index(of style: ShellStyle) -> Int {
            if let known = styleIndex[style] { return known }
            styles.append(style)
            styleIndex[style] = styles.count - 1
            return styles.count - 1
        }
        let encodedLines: [PropertyListValue] = lines.map { line in
            .dictionary(["row": .integer(line.row), "runs": .array(Self.runs(of: line.cells, styleIndex: index(of:)))])
        }
        return [
            "kind": "screen", "revision": .integer(revision), "full": .boolean(full), "rows": .integer(rows),
            "columns": .integer(columns), "cursorRow": .integer(cursorRow), "cursorColumn": .integer(cursorColumn),
            "cursorVisible": .boolean(cursorVisible), "altScreen": .boolean(alternateScreen),
            "mouse": .integer(mouse.rawValue), "title": .string(title),
            "styles": .array(styles.map { style in
                .array([.integer(style.foreground.wireValue), .integer(style.background.wireValue), .integer(style.attributes.rawValue)])
            }),
            "lines": .array(encodedLines),
        ]
    }

    /// A row as runs `[text, style, width]`: cells of one style and one width whose graphemes,
    /// joined, split back into the same graphemes; a cell whose grapheme would not is a run of
    /// its own, `[text, style, width, 1]`. Continuations are not sent: each 2-column grapheme
    /// brings its own.
    static func runs(of cells: [ShellCell], styleIndex: (ShellStyle) -> Int) -> [PropertyListValue] {
        var runs: [PropertyListValue] = []
        var text = ""
        var count = 0
        var last = ""
        var current: (style: ShellStyle, width: UInt8)?
        func flush() {
            guard let run = current, count > 0 else { return }
            runs.append(.array([.string(text), .integer(styleIndex(run.style)), .integer(Int(run.width))]))
            text = ""
            count = 0
            current = nil
        }
        var previousWide = false
        for cell in cells {
            if cell.isContinuation, previousWide {
                previousWide = false
                continue
            }
            // A stray continuation is sent as the blank it shows.
            let cell = cell.isContinuation ? ShellCell(" ", style: cell.style) : cell
            previousWide = cell.width == 2
            let alone = cell.grapheme.count != 1
            if alone || current.map({ $0.style != cell.style || $0.width != cell.width }) ?? true { flush() }
            if alone {
                runs.append(.array([.string(cell.grapheme), .integer(styleIndex(cell.style)), .integer(Int(cell.width)), .integer(1)]))
                continue
            }
            // Joined to the run, this grapheme might merge with the one before, or split it
            // otherwise ("🇨" then the flag "🇦🇧" reads back as "🇨🇦", "🇧"): then it starts a run of
            // its own. Only the grapheme before matters: the run splits back into its cells so
            // far, so the regional indicators before it pair up, and the emoji and conjunct
            // sequences a boundary looks back on lie within it.
            if count > 0, !Self.splitsBack(last, cell.grapheme) { flush() }
            current = (cell.style, cell.width)
            text += cell.grapheme
            last = cell.grapheme
            count += 1
        }
        flush()
        return runs
    }

    /// Whether `first` then `second`, joined, split back into those two graphemes.
    static func splitsBack(_ first: String, _ second: String) -> Bool {
        let joined = first + second
        var characters = joined.makeIterator()
        guard let one = characters.next(), String(one) == first, let two = characters.next(), String(two) == second else { return false }
        return characters.next() == nil
    }
}
