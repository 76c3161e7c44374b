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
        var text: [UInt8] = []
        text.reserveCapacity(cells.count)
        var count = 0
        // The run's last grapheme: `lastByte` when it is one printable ASCII character (which
        // splits from any such one after it), else `last`.
        var last = ""
        var lastByte: UInt8?
        var current: (style: ShellStyle, width: UInt8)?
        func flush() {
            guard let run = current, count > 0 else { return }
            runs.append(.array([.string(String(decoding: text, as: UTF8.self)), .integer(styleIndex(run.style)), .integer(Int(run.width))]))
            text.removeAll(keepingCapacity: true)
            count = 0
            current = nil
        }
        var previousWide = false
        for cell in cells {
            // Most cells: printable ASCII going on with a run of printable ASCII in its style.
            if lastByte != nil, cell.width == 1, let run = current, run.width == 1, run.style == cell.style,
               let byte = Self.printableByte(cell.grapheme) {
                text.append(byte)
                lastByte = byte
                count += 1
                previousWide = false
                continue
            }
            if cell.isContinuation, previousWide {
                previousWide = false
                continue
            }
            // A stray continuation is sent as the blank it shows.
            let cell = cell.isContinuation ? ShellCell(" ", style: cell.style) : cell
            previousWide = cell.width == 2
            let byte = Self.printableByte(cell.grapheme)
            let alone = byte == nil && cell.grapheme.count != 1
            if alone || current.map({ $0.style != cell.style || $0.width != cell.width }) ?? true { flush() }
            if alone {
                runs.append(.array([.string(cell.grapheme), .integer(styleIndex(cell.style)), .integer(Int(cell.width)), .integer(1)]))
                continue
            }
            // Joined to the run, this grapheme might merge with the one before, or split it
            // otherwise ("🇨" then the flag "🇦🇧" reads back as "🇨🇦", "🇧"): then it starts a run of
            // its own. Only the grapheme before matters: the run splits back into its cells so
            // far, so the regional indicators before it pair up, and the emoji and conjunct
            // sequences a boundary looks back on lie within it. Two printable ASCII characters
            // always split (one before may still take it: a prepended mark).
            if count > 0, byte == nil || lastByte == nil,
               !Self.splitsBack(lastByte.map { String(UnicodeScalar($0)) } ?? last, cell.grapheme) {
                flush()
            }
            current = (cell.style, cell.width)
            text.append(contentsOf: cell.grapheme.utf8)
            last = cell.grapheme
            lastByte = byte
            count += 1
        }
        flush()
        return runs
    }

    /// `grapheme`'s byte when it is one printable ASCII character (space to tilde), else nil.
    @inline(__always)
    static func printableByte(_ grapheme: String) -> UInt8? {
        let bytes = grapheme.utf8
        guard bytes.count == 1, let byte = bytes.first, (0x20...0x7E).contains(byte) else { return nil }
        return byte
    }

    /// Whether `first` then `second`, joined, split back into those two graphemes.
    static func splitsBack(_ first: String, _ second: String) -> Bool {
        let joined = first + second
        var characters = joined.makeIterator()
        guard let one = characters.next(), String(one) == first, let two = characters.next(), String(two) == second else { return false }
        return characters.next() == nil
    }
}
