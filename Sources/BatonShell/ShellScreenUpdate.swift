/// What a terminal showing a shell session is sent: the whole screen, or the rows that changed
/// since the last update it was sent, with the cursor and the modes (docs/PROTOCOL.md section 20).
public struct ShellScreenUpdate: Hashable, Sendable {
    /// One row, whole.
    public struct Line: Hashable, Sendable {
        public var row: Int
        public var cells: [ShellCell]
        public init(row: Int, cells: [ShellCell]) {
            self.row = row
            self.cells = cells
        }
    }

    /// Counts the keeper's updates to this terminal: each is the one after the last.
    public var revision: Int
    /// Whether this update replaces the whole screen; else it changes only `lines`.
    public var full: Bool
    public var rows: Int
    public var columns: Int
    public var cursorRow: Int
    public var cursorColumn: Int
    public var cursorVisible: Bool
    public var alternateScreen: Bool
    public var mouse: ShellScreen.MouseMode
    public var title: String
    public var lines: [Line]

    /// The most rows and columns a screen may have.
    public static let rowLimit = 500
    public static let columnLimit = 1000

    /// The update that turns `old` (what the terminal was last sent) into `new`: only the rows
    /// that differ, or the whole screen when nothing was sent or the size changed.
    public init(from old: ShellScreen?, to new: ShellScreen, revision: Int) {
        self.revision = revision
        rows = new.rowCount
        columns = new.columns
        cursorRow = new.cursorRow
        cursorColumn = new.cursorColumn
        cursorVisible = new.cursorVisible
        alternateScreen = new.alternateScreen
        mouse = new.mouse
        title = new.title
        if let old, old.rowCount == new.rowCount, old.columns == new.columns {
            full = false
            lines = new.rows.indices.compactMap { index in
                old.rows[index] == new.rows[index] ? nil : Line(row: index, cells: new.rows[index])
            }
        } else {
            full = true
            lines = new.rows.enumerated().map { Line(row: $0.offset, cells: $0.element) }
        }
    }

    /// Whether it changes nothing that `old` showed: no row, and the cursor and modes as they were.
    public func changesNothing(of old: ShellScreen) -> Bool {
        !full && lines.isEmpty && cursorRow == old.cursorRow && cursorColumn == old.cursorColumn
            && cursorVisible == old.cursorVisible && alternateScreen == old.alternateScreen && mouse == old.mouse
            && title == old.title
    }

    /// Why an update does not fit the screen it is applied to.
    public enum ApplyError: Error, Equatable {
        /// A partial update to nothing, or to a screen of another size.
        case noBase
    }

    /// `screen` with this update applied: a full update makes a new one.
    public func applied(to screen: ShellScreen?) throws(ApplyError) -> ShellScreen {
        var result: ShellScreen
        if full {
            result = ShellScreen(rows: rows, columns: columns)
        } else {
            guard let screen, screen.rowCount == rows, screen.columns == columns else { throw .noBase }
            result = screen
        }
        for line in lines { result.setRow(line.row, line.cells) }
        result.cursorRow = cursorRow
        result.cursorColumn = cursorColumn
        result.cursorVisible = cursorVisible
        result.alternateScreen = alternateScreen
        result.mouse = mouse
        result.title = title
        return result
    }
}
