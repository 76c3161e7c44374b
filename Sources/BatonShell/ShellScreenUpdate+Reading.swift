import PropertyList

extension ShellScreenUpdate {
    /// The longest title kept, in bytes of UTF-8.
    static let titleLimit = 1024

    /// Reads a `screen` message's keys; every row it names is whole and inside the screen.
    init<Value: MessageValue>(_ fields: Fields<Value>) throws(ShellMessage.ReadError) {
        revision = try fields.count("revision")
        full = try fields.bool("full")
        rows = try fields.size("rows")
        columns = try fields.size("columns")
        cursorRow = try fields.count("cursorRow")
        cursorColumn = try fields.count("cursorColumn")
        guard cursorRow < rows, cursorColumn < columns else { throw .malformed("the cursor is outside the screen") }
        cursorVisible = try fields.bool("cursorVisible")
        alternateScreen = try fields.bool("altScreen")
        guard let mouse = ShellScreen.MouseMode(rawValue: try fields.count("mouse")) else { throw .malformed("mouse is not 0 to 3") }
        self.mouse = mouse
        let title = try fields.string("title")
        guard title.utf8.count <= Self.titleLimit, !title.unicodeScalars.contains(where: ShellText.isControl) else {
            throw .malformed("the title is too long or holds a control character")
        }
        self.title = title
        guard let styleValues = fields.d["styles"], let styleCount = styleValues.arrayCount else { throw .malformed("styles is not an array") }
        var styles: [ShellStyle] = []
        styles.reserveCapacity(styleCount)
        for index in 0..<styleCount {
            let parts = styleValues[index]
            guard parts.arrayCount == 3, let fg = parts[0].intValue.flatMap(ShellColor.init(wireValue:)),
                  let bg = parts[1].intValue.flatMap(ShellColor.init(wireValue:)), let bits = parts[2].intValue,
                  bits >= 0, bits & ~ShellStyle.Attributes.all.rawValue == 0
            else { throw .malformed("a style is not [foreground, background, attributes]") }
            styles.append(ShellStyle(foreground: fg, background: bg, attributes: ShellStyle.Attributes(rawValue: bits)))
        }
        guard let lineValues = fields.d["lines"], let lineCount = lineValues.arrayCount, lineCount <= rows else {
            throw .malformed("lines is not an array of rows")
        }
        var seen = Set<Int>()
        var lines: [Line] = []
        lines.reserveCapacity(lineCount)
        for index in 0..<lineCount {
            let value = lineValues[index]
            guard value.isDictionary else { throw .malformed("a line is not a dictionary") }
            let row = try Fields(d: value).count("row")
            guard row < rows, seen.insert(row).inserted else { throw .malformed("a line outside the screen, or twice") }
            guard let runs = value["runs"], runs.arrayCount != nil else { throw .malformed("a line without runs") }
            lines.append(Line(row: row, cells: try Self.cells(of: runs, styles: styles, columns: columns)))
        }
        self.lines = lines
    }

    /// A row's cells from its runs, which must fill exactly `columns`.
    static func cells<Value: MessageValue>(of runs: Value, styles: [ShellStyle], columns: Int) throws(ShellMessage.ReadError) -> [ShellCell] {
        var cells: [ShellCell] = []
        cells.reserveCapacity(columns)
        for runIndex in 0..<(runs.arrayCount ?? 0) {
            let parts = runs[runIndex]
            guard let partCount = parts.arrayCount, (3...4).contains(partCount), let text = parts[0].stringValue, !text.isEmpty,
                  let index = parts[1].intValue, styles.indices.contains(index), let width = parts[2].intValue, (1...2).contains(width)
            else { throw .malformed("a run is not [text, style, width]") }
            let style = styles[index]
            // Printable ASCII, the common run: one cell per byte.
            if partCount == 3, width == 1, let bytes = Self.printableASCII(text) {
                guard cells.count + bytes.count <= columns else { throw .malformed("a row wider than the screen") }
                for byte in bytes { cells.append(ShellCell(Self.asciiGraphemes[Int(byte) - 0x20], style: style)) }
                continue
            }
            guard !text.unicodeScalars.contains(where: ShellText.isControl) else { throw .malformed("a run holds a control character") }
            let graphemes: [String]
            if partCount == 4 {
                guard parts[3].intValue == 1 else { throw .malformed("a run's fourth element is not 1") }
                graphemes = [text]
            } else {
                graphemes = text.map(String.init)
            }
            guard cells.count + graphemes.count * width <= columns else { throw .malformed("a row wider than the screen") }
            for grapheme in graphemes {
                cells.append(ShellCell(grapheme, width: UInt8(width), style: style))
                if width == 2 { cells.append(.continuation(style)) }
            }
        }
        guard cells.count == columns else { throw .malformed("a row narrower than the screen") }
        return cells
    }

    /// `text`'s bytes when each is printable ASCII (space to tilde), else nil.
    static func printableASCII(_ text: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        return bytes.allSatisfy { (0x20...0x7E).contains($0) } ? bytes : nil
    }

    /// The one-character strings of printable ASCII, from space.
    static let asciiGraphemes: [String] = (0x20...0x7E).map { String(UnicodeScalar(UInt8($0))) }
}
