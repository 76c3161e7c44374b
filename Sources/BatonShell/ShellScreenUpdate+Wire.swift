import PropertyList

/// A screen update's dictionary (docs/PROTOCOL.md section 20): rows as runs of cells that share
/// a style and a width, the styles used listed once.
extension ShellScreenUpdate {
    /// One run of a row: cells of one style and width whose graphemes, joined, split back
    /// into them; `alone` for a grapheme sent by itself (`[text, style, width, 1]`).
    struct Run {
        var text: String
        var style: Int
        var width: Int
        var alone: Bool
    }

    /// The dictionary's keys, in the order of their bytes.
    static let keys: [StaticString] = [
        "altScreen", "columns", "cursorColumn", "cursorRow", "cursorVisible", "full", "kind", "lines", "mouse",
        "revision", "rows", "styles", "title",
    ]
    static let lineKeys: [StaticString] = ["row", "runs"]

    /// Writes the update's dictionary into `builder`: the bytes `dictionary` is written as,
    /// with no tree between.
    func write(to builder: inout BinaryPropertyListBuilder) {
        var writer = Writer(builder: builder)
        builder = BinaryPropertyListBuilder()  // the writer holds the only copy of its storage
        writer.builder.beginDictionary(keys: Self.keys)
        writer.builder.add(alternateScreen)
        writer.builder.add(columns)
        writer.builder.add(cursorColumn)
        writer.builder.add(cursorRow)
        writer.builder.add(cursorVisible)
        writer.builder.add(full)
        writer.builder.add(literal: "screen")
        writer.builder.beginArray()
        for line in lines {
            writer.builder.beginDictionary(keys: Self.lineKeys)
            writer.builder.add(line.row)
            writer.builder.beginArray()
            Self.runs(of: line.cells, into: &writer)
            writer.builder.end()
            writer.builder.end()
        }
        writer.builder.end()
        writer.builder.add(mouse.rawValue)
        writer.builder.add(revision)
        writer.builder.add(rows)
        writer.builder.beginArray()
        for style in writer.styles.styles {
            writer.builder.beginArray()
            writer.builder.add(style.foreground.wireValue)
            writer.builder.add(style.background.wireValue)
            writer.builder.add(style.attributes.rawValue)
            writer.builder.end()
        }
        writer.builder.end()
        writer.builder.add(title)
        writer.builder.end()
        builder = writer.builder
    }

    /// Where a row's runs go, in order, with their styles numbered.
    protocol RunSink {
        mutating func styleIndex(_ style: ShellStyle) -> Int
        mutating func emit(_ run: Run)
    }

    /// Runs into a builder, as `[text, style, width]` or `[text, style, width, 1]`.
    struct Writer: RunSink {
        var builder: BinaryPropertyListBuilder
        var styles = StyleList()

        mutating func styleIndex(_ style: ShellStyle) -> Int { styles.index(of: style) }

        mutating func emit(_ run: Run) {
            builder.beginArray()
            builder.add(run.text)
            builder.add(run.style)
            builder.add(run.width)
            if run.alone { builder.add(1) }
            builder.end()
        }
    }

    /// Runs as property-list arrays.
    struct Values: RunSink {
        var number: (ShellStyle) -> Int
        var runs: [PropertyListValue] = []

        mutating func styleIndex(_ style: ShellStyle) -> Int { number(style) }

        mutating func emit(_ run: Run) {
            runs.append(.array([.string(run.text), .integer(run.style), .integer(run.width)] + (run.alone ? [.integer(1)] : [])))
        }
    }

    /// The styles a message uses, each listed once, numbered in the order first used.
    struct StyleList {
        var styles: [ShellStyle] = []
        var numbers: [ShellStyle: Int] = [:]

        mutating func index(of style: ShellStyle) -> Int {
            // Most updates use a few styles: a look along the list is cheaper than a hash.
            if styles.count <= 8 {
                if let known = styles.firstIndex(of: style) { return known }
            } else if let known = numbers[style] {
                return known
            }
            styles.append(style)
            if styles.count == 9 {
                for (number, each) in styles.enumerated() { numbers[each] = number }
            } else if styles.count > 9 {
                numbers[style] = styles.count - 1
            }
            return styles.count - 1
        }
    }

    /// The same update as a property-list tree (the form the reader gives; tests compare them).
    var dictionary: [String: PropertyListValue] {
        var styles = StyleList()
        let encodedLines: [PropertyListValue] = lines.map { line in
            var values = Values(number: { styles.index(of: $0) })
            Self.runs(of: line.cells, into: &values)
            return .dictionary(["row": .integer(line.row), "runs": .array(values.runs)])
        }
        return [
            "kind": "screen", "revision": .integer(revision), "full": .boolean(full), "rows": .integer(rows),
            "columns": .integer(columns), "cursorRow": .integer(cursorRow), "cursorColumn": .integer(cursorColumn),
            "cursorVisible": .boolean(cursorVisible), "altScreen": .boolean(alternateScreen),
            "mouse": .integer(mouse.rawValue), "title": .string(title),
            "styles": .array(styles.styles.map { style in
                .array([.integer(style.foreground.wireValue), .integer(style.background.wireValue), .integer(style.attributes.rawValue)])
            }),
            "lines": .array(encodedLines),
        ]
    }

    /// `runs(of:into:)` as property-list arrays.
    static func runs(of cells: [ShellCell], styleIndex: @escaping (ShellStyle) -> Int) -> [PropertyListValue] {
        var values = Values(number: styleIndex)
        runs(of: cells, into: &values)
        return values.runs
    }

    /// A row as runs `[text, style, width]`, each handed to `sink`: cells of one style and one
    /// width whose graphemes, joined, split back into the same graphemes; a cell whose grapheme
    /// would not is a run of its own, `[text, style, width, 1]`. Continuations are not sent:
    /// each 2-column grapheme brings its own.
    static func runs<Sink: RunSink>(of cells: [ShellCell], into sink: inout Sink) {
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
            let style = sink.styleIndex(run.style)
            sink.emit(Run(text: String(decoding: text, as: UTF8.self), style: style, width: Int(run.width), alone: false))
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
                let style = sink.styleIndex(cell.style)
                sink.emit(Run(text: cell.grapheme, style: style, width: Int(cell.width), alone: true))
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
