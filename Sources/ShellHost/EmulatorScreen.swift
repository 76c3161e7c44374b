internal import CVTerm

/// A cell as the emulator keeps it, as libvterm's own screen layer would: up to six code points
/// (a character and its combining marks; 0 after the last, 0 first for an erased cell,
/// `EmulatorScreen.continuation` first for a wide character's right half) and the pen it was
/// written with.
struct EmulatorCell {
    var chars: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    var pen: EmulatorPen
}

/// The pen: each colour as the wire writes it (-1 the default, 0-255 an index, 0x1000000 +
/// 0xRRGGBB), and `ShellStyle.Attributes`' bits, with `protected` (DECSCA) above them.
struct EmulatorPen: Equatable {
    var foreground: Int32 = -1
    var background: Int32 = -1
    var attributes: UInt8 = 0
    static let protected: UInt8 = 0x80
}

/// The screen libvterm's state layer draws on: what its screen layer kept, with each buffer's
/// rows reached through a table of row offsets, so that a line scrolling off moves the table's
/// entries, not every cell (the screen layer moved the whole screen for each line, which was
/// most of the keeper's time under a flood of output).
///
/// It lives at a fixed address (libvterm is handed a pointer to it) and its callbacks are
/// static functions, so the per-character path reaches no object and no exclusivity check.
/// Rows written since the screen was last read are marked in `damaged`.
struct EmulatorScreen {
    /// The marker of a wide character's right half, in its cell's first code point.
    static let continuation = UInt32.max

    struct Buffer {
        var cells: UnsafeMutablePointer<EmulatorCell>
        /// Row r's cells start at `cells + lines[r]`.
        var lines: UnsafeMutablePointer<Int>
    }

    var rows: Int
    var columns: Int
    /// The buffer shown, and the other (the primary while the alternate screen shows).
    var shown: Buffer
    var hidden: Buffer
    var onAlternate = false
    var pen = EmulatorPen()
    /// DECSCNM: the whole screen in reverse video.
    var reverse = false
    var damaged: UnsafeMutablePointer<Bool>
    /// Whether anything shown changed since the flag was cleared.
    var changed = true
    var cursorRow = 0
    var cursorColumn = 0
    var cursorVisible = true
    var mouse = 0
    var title = ""
    /// libvterm's state, which knows where the cursor is while a resize is under way.
    var state: OpaquePointer?
    /// What plain text has shown since the last byte fed that was not plain text (see
    /// `ScrolledText`): a character drawn (so libvterm's parser was in its ground state), and a
    /// line feed that scrolled the whole screen up (so the scrolling region is the whole screen).
    var printed = false
    var scrolledWhole = false
    /// The width of the last character libvterm drew (0 before any): the width its REP repeats
    /// at (`SequenceGuard`).
    var glyphWidth: Int32 = 0

    init(rows: Int, columns: Int) {
        self.rows = rows
        self.columns = columns
        // libvterm's screen starts with a zeroed pen, and its state's reset sets the pen and erases.
        let zero = EmulatorPen(foreground: 0x1000000, background: 0x1000000)
        shown = Self.buffer(rows: rows, columns: columns, pen: zero)
        hidden = Self.buffer(rows: rows, columns: columns, pen: zero)
        damaged = .allocate(capacity: rows)
        damaged.initialize(repeating: true, count: rows)
    }

    func free() {
        for buffer in [shown, hidden] {
            buffer.cells.deallocate()
            buffer.lines.deallocate()
        }
        damaged.deallocate()
    }

    static func buffer(rows: Int, columns: Int, pen: EmulatorPen) -> Buffer {
        let cells = UnsafeMutablePointer<EmulatorCell>.allocate(capacity: max(1, rows * columns))
        cells.initialize(repeating: EmulatorCell(chars: (0, 0, 0, 0, 0, 0), pen: pen), count: rows * columns)
        let lines = UnsafeMutablePointer<Int>.allocate(capacity: max(1, rows))
        for row in 0..<rows { lines[row] = row * columns }
        return Buffer(cells: cells, lines: lines)
    }

    /// Row `row` of the buffer shown.
    @inline(__always) func row(_ row: Int) -> UnsafeMutablePointer<EmulatorCell> { shown.cells + shown.lines[row] }

    mutating func damage(_ rows: Range<Int>) {
        for row in rows.clamped(to: 0..<self.rows) { damaged[row] = true }
        changed = true
    }

    /// Blanks `rect` with the pen, as libvterm's screen does (the cells keep no protection).
    /// With `selective`, protected cells are left.
    mutating func erase(rows: Range<Int>, columns: Range<Int>, selective: Bool) {
        let columns = columns.clamped(to: 0..<self.columns)
        for row in rows.clamped(to: 0..<self.rows) {
            let cells = self.row(row)
            for column in columns {
                if selective, cells[column].pen.attributes & EmulatorPen.protected != 0 { continue }
                cells[column].chars.0 = 0
                cells[column].pen = pen
            }
        }
        damage(rows)
    }

    /// Moves the cells of `source` to `destination` (same size), row by row in the order that
    /// reads each source row before it is overwritten.
    mutating func move(_ destination: VTermRect, from source: VTermRect) {
        let count = Int(source.end_col - source.start_col)
        let downward = Int(source.start_row - destination.start_row)
        let rows = downward < 0
            ? stride(from: Int(destination.end_row) - 1, to: Int(destination.start_row) - 1, by: -1)
            : stride(from: Int(destination.start_row), to: Int(destination.end_row), by: 1)
        for row in rows where row >= 0 && row < self.rows && row + downward >= 0 && row + downward < self.rows && count > 0 {
            Self.move(count, from: self.row(row + downward) + Int(source.start_col), to: self.row(row) + Int(destination.start_col))
        }
        damage(Self.span(destination.start_row, destination.end_row))
    }

    /// Scrolls whole rows `rows` up by `downward` (down when negative): the row table turns and
    /// the rows that come in are erased.
    mutating func scroll(rows range: Range<Int>, downward: Int) {
        let range = range.clamped(to: 0..<rows)
        let height = range.count
        guard abs(downward) < height else {
            erase(rows: range, columns: 0..<columns, selective: false)
            return
        }
        let lines = shown.lines
        let moved = abs(downward)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: moved) { saved in
            let start = lines + range.lowerBound
            if downward > 0 {
                _ = saved.initialize(fromContentsOf: UnsafeBufferPointer(start: start, count: moved))
                Self.move(height - moved, from: start + moved, to: start)
                (start + height - moved).update(from: saved.baseAddress!, count: moved)
            } else {
                _ = saved.initialize(fromContentsOf: UnsafeBufferPointer(start: start + height - moved, count: moved))
                Self.move(height - moved, from: start, to: start + moved)
                start.update(from: saved.baseAddress!, count: moved)
            }
        }
        let exposed = downward > 0 ? (range.upperBound - moved)..<range.upperBound : range.lowerBound..<(range.lowerBound + moved)
        erase(rows: exposed, columns: 0..<columns, selective: false)
        damage(range)
    }

    /// Copies `count` values of a trivial type, the two places possibly overlapping (memmove).
    @inline(__always) static func move<T>(_ count: Int, from source: UnsafeMutablePointer<T>, to destination: UnsafeMutablePointer<T>) {
        UnsafeMutableRawPointer(destination).copyMemory(from: source, byteCount: count * MemoryLayout<T>.stride)
    }

    /// Whether row `row` is blank from `column` on (libvterm's `vterm_screen_is_eol`).
    func isBlank(row: Int, from column: Int) -> Bool {
        let cells = self.row(row)
        return (column..<columns).allSatisfy { cells[$0].chars.0 == 0 }
    }

    /// The terminal is now `newRows` × `newColumns`: as libvterm's screen, the primary screen
    /// first scrolls up the rows below the cursor that would be cut and are not blank, and
    /// `delta` says how far the cursor moved; new cells are blank in the pen.
    mutating func resize(rows newRows: Int, columns newColumns: Int, cursorRow: Int, delta: inout VTermPos) {
        if !onAlternate, newRows < rows {
            var row = rows - 1
            while row >= newRows, isBlank(row: row, from: 0), row != cursorRow { row -= 1 }
            let firstBlank = row + 1
            if firstBlank > newRows {
                scroll(rows: 0..<rows, downward: firstBlank - newRows)
                delta.row -= Int32(firstBlank - newRows)
            }
        }
        for index in 0..<2 {
            let old = index == 0 ? shown : hidden
            let new = Self.buffer(rows: newRows, columns: newColumns, pen: pen)
            for row in 0..<min(rows, newRows) {
                (new.cells + new.lines[row]).update(from: old.cells + old.lines[row], count: min(columns, newColumns))
            }
            old.cells.deallocate()
            old.lines.deallocate()
            if index == 0 { shown = new } else { hidden = new }
        }
        damaged.deallocate()
        damaged = .allocate(capacity: max(1, newRows))
        damaged.initialize(repeating: true, count: max(1, newRows))
        rows = newRows
        columns = newColumns
        changed = true
    }
}
