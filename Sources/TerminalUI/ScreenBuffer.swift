/// A grid of cells the app draws a frame into; the backend shows it.
///
/// Every text that enters is sanitized (see `TerminalSanitizer`), measured with
/// `CharacterWidth`, and clipped to the buffer. A wide grapheme takes its cell
/// and a continuation cell to its right; overwriting either half blanks the
/// other, so the grid never holds half a character. Zero-width graphemes on
/// their own (a lone combining mark) are dropped.
public struct ScreenBuffer: Hashable, Sendable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Row-major cells, `width * height` of them.
    public private(set) var cells: [Cell]
    /// Per row, a number its drawer gave it (`stamp(row:as:)`), 0 when none: rows of two buffers
    /// with the same number other than 0 hold the same cells, so a diff passes over them without
    /// reading them. Every write to a row clears its number.
    public private(set) var rowStamps: [UInt64]

    /// A blank buffer of `width` columns by `height` rows (negative sizes become 0).
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.cells = Array(repeating: .blank, count: self.width * self.height)
        self.rowStamps = Array(repeating: 0, count: self.height)
    }

    /// Gives row `y` the number `stamp` (see `rowStamps`): its drawer says that any row with
    /// this number holds the cells it holds now.
    public mutating func stamp(row y: Int, as stamp: UInt64) {
        guard y >= 0, y < height else { return }
        rowStamps[y] = stamp
    }

    /// Row `y` was written to: its number no longer says what it holds.
    private mutating func unstamp(row y: Int) {
        if y >= 0, y < height, rowStamps[y] != 0 { rowStamps[y] = 0 }
    }

    /// A blank buffer of `size`.
    public init(size: TerminalSize) {
        self.init(width: size.width, height: size.height)
    }

    /// The buffer's size.
    public var size: TerminalSize { TerminalSize(width: width, height: height) }

    /// The cell at column `x`, row `y`; a blank outside the buffer.
    public subscript(x x: Int, y y: Int) -> Cell {
        guard contains(x: x, y: y) else { return .blank }
        return cells[y * width + x]
    }

    /// Whether (`x`, `y`) lies inside the buffer.
    public func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < width && y < height
    }

    /// Writes `text` from column `x` of row `y` and returns the columns it used.
    ///
    /// Stops at the right edge, or after `maxWidth` columns when given. A wide
    /// grapheme that does not fit in what is left is replaced by a space, and
    /// nothing after it is written. Columns left of 0 are skipped.
    @discardableResult
    public mutating func put(
        _ text: String, x: Int, y: Int, style: Style = .plain, maxWidth: Int? = nil
    ) -> Int {
        guard y >= 0, y < height, x < width else { return 0 }
        unstamp(row: y)
        let limit = maxWidth.map { x.addingClamped($0).clamped(to: 0...width) } ?? width
        let start = max(x, 0)
        var column = x
        let scalars = text.unicodeScalars
        if x >= 0, scalars.allSatisfy(CharacterWidth.isNarrowAlone) {
            // Titles, the status bar, most prompts: nothing to sanitize and one column a scalar
            // (`CharacterWidth.isNarrowAlone`), so no character is segmented or measured.
            // Drawn on every key: stored through one pointer, as `store` would.
            let width = width
            cells.withUnsafeMutableBufferPointer { cells in
                for scalar in scalars {
                    guard column < limit else { break }
                    Self.storeNarrow(Cell(uncheckedNarrowScalar: scalar, style: style), x: column, y: y, width: width, in: cells)
                    column += 1
                }
            }
            return column - start
        }
        if x >= 0, !scalars.contains(where: TerminalSanitizer.isUnsafe) {
            // Nothing to sanitize, and a few other characters (a hint's "↪" and "—", an "é"):
            // the one-column scalars around them are stored as above; only those characters are
            // segmented and measured, as below.
            pieces: for piece in DrawnPieces(text) {
                guard column < limit else { break }
                switch piece {
                case .narrow(let scalar):
                    store(Cell(uncheckedNarrowScalar: scalar, style: style), x: column, y: y)
                    column += 1
                case .character(let character):
                    guard put(character, at: &column, limit: limit, y: y, style: style) else { break pieces }
                }
            }
            return column - start
        }
        for character in text.sanitizedForTerminal {
            guard column < limit else { break }
            if column < 0 {
                // Columns left of 0 are skipped; half a wide grapheme there is a blank at 0.
                guard let cell = Self.cell(for: character, style: style) else { continue }
                if column + cell.width > limit { break }
                if column + cell.width > 0 {
                    store(.blank(style: style), x: 0, y: y)
                }
                column += cell.width
                continue
            }
            guard put(character, at: &column, limit: limit, y: y, style: style) else { break }
        }
        return max(0, column - start)
    }

    /// The cell `put` makes of `character`, measured once where it can be (`Cell.plain`),
    /// otherwise as `Cell.init` makes it; nil for one that takes no column (it is left out).
    private static func cell(for character: Character, style: Style) -> Cell? {
        if let plain = Cell.plain(character, style: style) { return plain }
        if character.terminalColumns == 0 { return nil }
        return Cell(character, style: style)
    }

    /// Stores `character` at `column` (0 or more) of row `y` and moves `column` past it; false
    /// when it does not fit before `limit` (a space is stored in its place, and `put` stops).
    private mutating func put(_ character: Character, at column: inout Int, limit: Int, y: Int, style: Style) -> Bool {
        guard let cell = Self.cell(for: character, style: style) else { return true }
        if column + cell.width > limit {
            store(.blank(style: style), x: column, y: y)
            column += 1
            return false
        }
        store(cell, x: column, y: y)
        column += cell.width
        return true
    }

    /// Fills a rectangle with `character` in `style`; by default the whole buffer with blanks.
    ///
    /// The rectangle is clipped to the buffer. A wide fill character repeats every
    /// two columns, with a space where the last one would not fit.
    public mutating func fill(
        _ character: Character = " ",
        style: Style = .plain,
        x: Int = 0,
        y: Int = 0,
        width fillWidth: Int? = nil,
        height fillHeight: Int? = nil
    ) {
        let right = (fillWidth.map { x.addingClamped($0) } ?? width).clamped(to: 0...width)
        let bottom = (fillHeight.map { y.addingClamped($0) } ?? height).clamped(to: 0...height)
        let top = max(y, 0)
        guard top < bottom else { return }
        for row in top..<bottom { unstamp(row: row) }
        var sample = Cell(character, style: style)
        if sample.width == 0 { sample = .blank(style: style) }
        if sample.width == 1, x >= 0 {
            // A blank row under the title or a message, on every key: through one pointer.
            let width = width
            cells.withUnsafeMutableBufferPointer { cells in
                for row in top..<bottom {
                    for column in x..<max(x, right) {
                        Self.storeNarrow(sample, x: column, y: row, width: width, in: cells)
                    }
                }
            }
            return
        }
        for row in top..<bottom {
            var column = x
            while column < right {
                if column + sample.width > right {
                    if column >= 0 { store(.blank(style: style), x: column, y: row) }
                    column += 1
                } else if column < 0 {
                    if column + sample.width > 0 { store(.blank(style: style), x: 0, y: row) }
                    column += sample.width
                } else {
                    store(sample, x: column, y: row)
                    column += sample.width
                }
            }
        }
    }

    /// Blanks every cell, in place when the buffer's memory is its own.
    public mutating func clear() {
        // Cells are plain bytes: blanking is a run of stores, with no element released.
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: .blank) }
        rowStamps.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    /// Blanks row `y`; with `unnumbered`, only when it has no number (`rowStamps`).
    public mutating func clear(row y: Int, unnumbered: Bool = false) {
        guard y >= 0, y < height, !unnumbered || rowStamps[y] == 0 else { return }
        cells.withUnsafeMutableBufferPointer { UnsafeMutableBufferPointer(rebasing: $0[(y * width)..<((y + 1) * width)]).update(repeating: .blank) }
        unstamp(row: y)
    }

    /// Puts `cell` at (`x`, `y`), blanking any wide grapheme it cuts in half.
    /// The caller guarantees the cell fits.
    /// Writes `cell` at (`x`, `y`) when it fits inside the buffer there (both columns of a wide
    /// one); returns whether it was written.
    @discardableResult
    public mutating func put(_ cell: Cell, x: Int, y: Int) -> Bool {
        guard !cell.isContinuation, contains(x: x, y: y), x + cell.width <= width else { return false }
        store(cell, x: x, y: y)
        return true
    }

    /// The cells of row `y` from column `x`, `count` of them (clipped to the row): a drawn piece
    /// of a row, to be put back whole in a later frame with `put(span:x:y:)`.
    public func span(x: Int, y: Int, count: Int) -> ArraySlice<Cell> {
        guard y >= 0, y < height else { return [] }
        let start = x.clamped(to: 0...width)
        let end = x.addingClamped(max(0, count)).clamped(to: start...width)
        return cells[(y * width + start)..<(y * width + end)]
    }

    /// Writes a span taken with `span(x:y:count:)` from column `x` of row `y`, cell by cell as
    /// `put(_:x:y:)` would: a continuation is written by the wide cell before it, and a span
    /// that would not fit, or that starts inside a wide grapheme, writes nothing. Returns
    /// whether it was written.
    @discardableResult
    public mutating func put(span: ArraySlice<Cell>, x: Int, y: Int) -> Bool {
        guard y >= 0, y < height, x >= 0, x.addingClamped(span.count) <= width else { return false }
        guard span.first?.isContinuation != true else { return false }
        unstamp(row: y)
        if x == 0, span.count == width, span.last?.width != 2 {
            // A whole row, taken from a buffer that never holds half a grapheme: nothing
            // around it to mend.
            let start = y * width
            cells.replaceSubrange(start..<(start + width), with: span)
            return true
        }
        var column = x
        for cell in span {
            if !cell.isContinuation {
                guard column + cell.width <= x + span.count else { break }
                store(cell, x: column, y: y)
            }
            column += 1
        }
        return true
    }

    mutating func store(_ cell: Cell, x: Int, y: Int) {
        precondition(contains(x: x, y: y) && x + max(cell.width, 1) <= width)
        unstamp(row: y)
        releaseColumn(x: x, y: y)
        if cell.width == 2 { releaseColumn(x: x + 1, y: y) }
        let index = y * width + x
        cells[index] = cell
        if cell.width == 2 {
            cells[index + 1] = .continuation(style: cell.style)
        }
    }

    /// `store` of a one-column `cell` into `cells` (this buffer's, `width` columns), for a run
    /// of stores made through one pointer rather than a uniqueness check of the array each.
    private static func storeNarrow(_ cell: Cell, x: Int, y: Int, width: Int, in cells: UnsafeMutableBufferPointer<Cell>) {
        releaseColumn(x: x, y: y, width: width, in: cells)
        cells[y * width + x] = cell
    }

    /// Makes column `x` free to overwrite: the other half of a wide grapheme
    /// that covers it becomes a blank.
    private mutating func releaseColumn(x: Int, y: Int) {
        let width = width
        cells.withUnsafeMutableBufferPointer { Self.releaseColumn(x: x, y: y, width: width, in: $0) }
    }

    /// `releaseColumn(x:y:)` in `cells`, this buffer's, `width` columns wide.
    private static func releaseColumn(x: Int, y: Int, width: Int, in cells: UnsafeMutableBufferPointer<Cell>) {
        let index = y * width + x
        let current = cells[index]
        if current.isContinuation, x > 0 {
            cells[index - 1] = .blank(style: cells[index - 1].style)
        } else if current.width == 2, x + 1 < width {
            cells[index + 1] = .blank(style: current.style)
        }
    }
}
