import BatonShell
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal shows for a screen and a status line, cell by cell, and where its cursor
/// goes. Pure.
enum ShellDisplayLayout {
    /// The terminal's `rows` × `columns` cells: the screen from its top left, cropped, or
    /// padded with blanks where the terminal is larger; with a `status`, the last row is the
    /// status in reverse video instead of the screen's row there. Every cell is sanitized: no
    /// control character reaches the terminal, and wide graphemes come with their continuation
    /// (one cut by the edge, or without its right half, is a blank).
    static func grid(
        _ screen: ShellScreen, status: String?, rows: Int, columns: Int,
        width: (Character) -> Int, reusing previous: Drawn? = nil
    ) -> [[ShellCell]] {
        guard rows > 0, columns > 0 else { return [] }
        let screenRows = status == nil ? rows : rows - 1
        let reusable = previous.flatMap { $0.grid.count == rows && $0.grid.first?.count == columns ? $0 : nil }
        var grid: [[ShellCell]] = []
        grid.reserveCapacity(rows)
        for index in 0..<screenRows {
            guard index < screen.rowCount else {
                grid.append(Array(repeating: .blank, count: columns))
                continue
            }
            // A row as it was last drawn from is drawn as then (an unchanged row of the screen
            // shares its storage with the last one: the comparison costs nothing).
            if let reusable, index < reusable.source.count, reusable.source[index] == screen.rows[index] {
                grid.append(reusable.grid[index])
                continue
            }
            // A row as wide as the terminal is taken as it is: its storage shared, not copied.
            var row = screen.rows[index]
            if row.count != columns {
                row = Array(row.prefix(columns))
                row.append(contentsOf: repeatElement(.blank, count: columns - row.count))
            }
            grid.append(sanitized(row))
        }
        if let status { grid.append(statusRow(status, columns: columns, width: width)) }
        return grid
    }

    /// A grid as drawn, and the screen's rows it was drawn from (those the status row did not
    /// take), for the next draw to reuse the rows that did not change.
    struct Drawn {
        var source: [[ShellCell]]
        var grid: [[ShellCell]]
    }

    /// Where the cursor goes, or nil to hide it: the screen's cursor when it shows one and it
    /// falls on a screen cell the terminal shows (not under the status row).
    static func cursor(of screen: ShellScreen, status: String?, rows: Int, columns: Int) -> (row: Int, column: Int)? {
        let screenRows = min(screen.rowCount, status == nil ? rows : rows - 1)
        guard screen.cursorVisible, screen.cursorRow >= 0, screen.cursorColumn >= 0,
              screen.cursorRow < screenRows, screen.cursorColumn < min(columns, screen.columns) else { return nil }
        return (screen.cursorRow, screen.cursorColumn)
    }

    /// `row` with every grapheme stripped of control characters (an empty one a blank), widths
    /// kept to 0, 1 and 2, and every wide grapheme followed by its continuation and every
    /// continuation preceded by its wide grapheme; what breaks that becomes a blank.
    static func sanitized(_ row: [ShellCell]) -> [ShellCell] {
        // Most rows: every cell one printable ASCII character of one column, which is as drawn.
        // Looked at where they lie: a copy of each cell costs more than the look.
        if row.allSatisfy(isPrintableASCII) { return row }
        var row = row
        for index in row.indices {
            if isPrintableASCII(row[index]) { continue }
            var cell = row[index]
            if cell.width > 2 { cell.width = 1 }
            if cell.grapheme.unicodeScalars.contains(where: ShellKeyDecoder.isControl) {
                cell.grapheme = String(String.UnicodeScalarView(cell.grapheme.unicodeScalars.filter { !ShellKeyDecoder.isControl($0) }))
            }
            if cell.width > 0, cell.grapheme.isEmpty { cell.grapheme = " " }
            if cell.width == 0 { cell.grapheme = "" }
            row[index] = cell
        }
        for index in row.indices {
            switch row[index].width {
            case 2 where index + 1 >= row.count || !row[index + 1].isContinuation:
                row[index] = ShellCell(" ", style: row[index].style)
            case 0 where index == 0 || row[index - 1].width != 2:
                row[index] = ShellCell(" ", style: row[index].style)
            default:
                break
            }
        }
        return row
    }

    /// Whether `cell` is one printable ASCII character taking one column.
    static func isPrintableASCII(_ cell: ShellCell) -> Bool {
        guard cell.width == 1, cell.grapheme.utf8.count == 1, let byte = cell.grapheme.utf8.first else { return false }
        return (0x20..<0x7F).contains(byte)
    }

    /// The status line as a row of `columns` cells in reverse video: its printable characters,
    /// each as wide as `width` says (1 or 2; one that takes none is left out), cut where the
    /// next would not fit, then blanks.
    static func statusRow(_ status: String, columns: Int, width: (Character) -> Int) -> [ShellCell] {
        let style = ShellStyle(attributes: .reverse)
        var row: [ShellCell] = []
        // A control character is always a grapheme of its own (CR LF the one pair).
        for character in status where !character.unicodeScalars.contains(where: ShellKeyDecoder.isControl) {
            let columnsTaken = min(2, width(character))
            guard columnsTaken > 0 else { continue }
            guard row.count + columnsTaken <= columns else { break }
            row.append(ShellCell(String(character), width: UInt8(columnsTaken), style: style))
            if columnsTaken == 2 { row.append(.continuation(style)) }
        }
        row.append(contentsOf: repeatElement(ShellCell(" ", style: style), count: columns - row.count))
        return row
    }
}

/// Consecutive cells of one row to write, from `column`.
struct ShellDisplayRun: Hashable {
    var row: Int
    var column: Int
    var cells: [ShellCell]
}

/// What changed between the grid last drawn and the next. Pure.
enum ShellDisplayDiff {
    /// The runs of cells to write to turn `old` into `new`: every row whole when there is no
    /// `old` or its size differs (`full`), otherwise only the cells that differ, a wide
    /// grapheme and its continuation together.
    static func runs(from old: [[ShellCell]]?, to new: [[ShellCell]]) -> (full: Bool, runs: [ShellDisplayRun]) {
        guard let old, old.count == new.count, zip(old, new).allSatisfy({ $0.count == $1.count }) else {
            return (true, new.enumerated().map { ShellDisplayRun(row: $0.offset, column: 0, cells: $0.element) })
        }
        var runs: [ShellDisplayRun] = []
        var changed: [Bool] = []
        for index in new.indices {
            let after = new[index]
            guard differences(from: old[index], to: after, into: &changed) else { continue }
            var column = 0
            while column < changed.count {
                guard changed[column] else {
                    column += 1
                    continue
                }
                let start = column
                while column < changed.count, changed[column] { column += 1 }
                runs.append(ShellDisplayRun(row: index, column: start, cells: Array(after[start..<column])))
            }
        }
        return (false, runs)
    }

    /// Sets `changed` to the cells of `after` to write over `before` (a row of the same length),
    /// a wide grapheme and its continuation together; false when none differ. Equal bytes are
    /// equal cells, so a row is compared first with one `memcmp` and then a cell at a time the
    /// same way, and only cells whose bytes differ are compared as values (their strings may
    /// be equal in other storage).
    static func differences(from before: [ShellCell], to after: [ShellCell], into changed: inout [Bool]) -> Bool {
        let stride = MemoryLayout<ShellCell>.stride
        return before.withUnsafeBufferPointer { old in
            after.withUnsafeBufferPointer { new in
                guard let oldBase = old.baseAddress, let newBase = new.baseAddress, new.count == old.count else {
                    return false
                }
                let (oldBytes, newBytes) = (UnsafeRawPointer(oldBase), UnsafeRawPointer(newBase))
                if oldBytes == newBytes || memcmp(oldBytes, newBytes, new.count * stride) == 0 { return false }
                changed.removeAll(keepingCapacity: true)
                var any = false
                for column in 0..<new.count {
                    let same = memcmp(oldBytes + column * stride, newBytes + column * stride, stride) == 0 || old[column] == new[column]
                    changed.append(!same)
                    if !same { any = true }
                }
                guard any else { return false }
                // A column marked here is looked at in its turn, as the ones marked before it.
                var column = 0
                while column < new.count {
                    if changed[column] {
                        if new[column].width == 0 || old[column].width == 0, column > 0 { changed[column - 1] = true }
                        if new[column].width == 2 || old[column].width == 2, column + 1 < new.count { changed[column + 1] = true }
                    }
                    column += 1
                }
                return true
            }
        }
    }
}
