/// A shell session's screen as its terminal emulator holds it: rows of cells, the cursor, and
/// the modes a terminal that shows it must know (docs/PROTOCOL.md section 20).
public struct ShellScreen: Hashable, Sendable {
    /// How the program asked for mouse reports (libvterm's property).
    public enum MouseMode: Int, Hashable, Sendable {
        case none = 0
        /// Presses and releases.
        case click = 1
        /// Presses, releases, and moves with a button held.
        case drag = 2
        /// Every move.
        case move = 3
    }

    /// `rows.count` rows of `columns` cells each.
    public private(set) var rows: [[ShellCell]]
    public private(set) var columns: Int
    /// Where the cursor is: row and column, from 0.
    public var cursorRow = 0
    public var cursorColumn = 0
    public var cursorVisible = true
    /// Whether the program shows its alternate screen (vim, less, htop do).
    public var alternateScreen = false
    public var mouse = MouseMode.none
    /// The window title the program set, or "".
    public var title = ""

    /// A blank screen of `rows` × `columns`.
    public init(rows: Int, columns: Int) {
        let rows = max(1, rows), columns = max(1, columns)
        self.rows = Array(repeating: Array(repeating: .blank, count: columns), count: rows)
        self.columns = columns
    }

    public var rowCount: Int { rows.count }

    /// Puts `cells` (exactly `columns` of them) in row `row`.
    public mutating func setRow(_ row: Int, _ cells: [ShellCell]) {
        precondition(cells.count == columns && rows.indices.contains(row))
        rows[row] = cells
    }

    /// Changes the size, keeping what fits from the top left and blanking the rest.
    public mutating func resize(rows newRows: Int, columns newColumns: Int) {
        let newRows = max(1, newRows), newColumns = max(1, newColumns)
        var resized: [[ShellCell]] = []
        resized.reserveCapacity(newRows)
        for index in 0..<newRows {
            var row = index < rows.count ? Array(rows[index].prefix(newColumns)) : []
            // A wide grapheme cut in half at the new edge becomes a blank.
            if row.count == newColumns, let last = row.last, last.width == 2 { row[newColumns - 1] = .blank }
            row.append(contentsOf: repeatElement(.blank, count: newColumns - row.count))
            resized.append(row)
        }
        rows = resized
        columns = newColumns
        cursorRow = min(cursorRow, newRows - 1)
        cursorColumn = min(cursorColumn, newColumns - 1)
    }

    /// Row `row`'s text, continuations skipped and trailing blanks kept: for tests and logs.
    public func text(ofRow row: Int) -> String {
        rows[row].filter { !$0.isContinuation }.map(\.grapheme).joined()
    }

    /// Every row's text with its trailing blanks cut, one line each.
    public var text: String {
        rows.indices.map { index in
            var line = text(ofRow: index)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
