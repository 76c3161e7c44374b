import CNCurses
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

extension NCursesSession {
    /// Writes the cells of `frame` that changed since the last frame, then
    /// updates the terminal and places or hides the cursor.
    ///
    /// Each cell is positioned with its own move, so a grapheme whose width
    /// libc sees differently from `CharacterWidth` cannot shift the rest of
    /// its row. After a resize, or when the frame's size changes, the screen is
    /// erased and the whole frame written.
    func draw(_ frame: ScreenBuffer, cursor: CursorPosition?) {
        Self.lock.withLock {
            guard let screen, !isShutDown else { return }
            set_term(screen)
            guard let window = baton_stdscr() else { return }
            let screenSize = currentSizeLocked()

            if let lastFrame, lastFrame.size == frame.size, lastScreenSize == screenSize {
                putChanges(frame.diff(from: lastFrame), on: window, size: screenSize)
            } else {
                werase(window)
                let rows = min(frame.height, screenSize.height)
                for y in 0..<rows {
                    for x in 0..<min(frame.width, screenSize.width) {
                        let cell = frame[x: x, y: y]
                        if cell.isContinuation || cell == .blank { continue }
                        put(cell, x: x, y: y, on: window, size: screenSize)
                    }
                }
            }

            if let cursor, cursor.x >= 0, cursor.y >= 0,
               cursor.x < screenSize.width, cursor.y < screenSize.height {
                wmove(window, Int32(cursor.y), Int32(cursor.x))
                if cursorVisible != true {
                    curs_set(1)
                    cursorVisible = true
                }
            } else if cursorVisible != false {
                curs_set(0)
                cursorVisible = false
            }

            wnoutrefresh(window)
            doupdate()
            writeLongClusters(of: frame, on: window, size: screenSize)
            lastFrame = frame
            lastScreenSize = screenSize
        }
    }

    /// Writes the changed cells: runs of printable ASCII in one style, side by side on a row
    /// (a typed line, a title), with one call each; every other cell with its own move
    /// (`put`). Lock held.
    private func putChanges(_ changes: [CellChange], on window: UnsafeMutablePointer<WINDOW>, size: TerminalSize) {
        var run: [UInt8] = []
        var runX = 0
        var runY = 0
        var runStyle = Style.plain
        func flush() {
            guard !run.isEmpty else { return }
            let attributes = attributes(for: runStyle)
            let pair = Self.colorPair(for: runStyle.foreground)
            // As in `writeCodepoints`: the bottom-right cell can report ERR although written.
            _ = run.withUnsafeBufferPointer { bytes in
                baton_put_ascii_run(window, Int32(runY), Int32(runX), bytes.baseAddress, Int32(bytes.count), attributes, pair)
            }
            run.removeAll(keepingCapacity: true)
        }
        for change in changes where !change.cell.isContinuation {
            guard change.x < size.width, change.y < size.height else { continue }
            if let ascii = change.cell.printableASCII {
                if run.isEmpty || change.y != runY || change.x != runX + run.count || change.cell.style != runStyle {
                    flush()
                    runX = change.x
                    runY = change.y
                    runStyle = change.cell.style
                }
                run.append(ascii)
            } else {
                flush()
                put(change.cell, x: change.x, y: change.y, on: window, size: size)
            }
        }
        flush()
    }

    /// Writes one cell at its own position, in exactly `cell.width` columns
    /// as far as ncurses is concerned. Lock held.
    private func put(_ cell: Cell, x: Int, y: Int, on window: UnsafeMutablePointer<WINDOW>, size: TerminalSize) {
        guard x < size.width, y < size.height else { return }
        let attributes = attributes(for: cell.style)
        let pair = Self.colorPair(for: cell.style.foreground)
        guard x + cell.width <= size.width else {
            // A wide grapheme cut by a terminal narrower than the frame.
            writeCodepoints([0x20], x: x, y: y, attributes: attributes, pair: pair, window: window)
            return
        }
        if let ascii = cell.printableASCII {
            // Most cells: one column everywhere, no cluster to build.
            var codepoint = wchar_t(ascii)
            baton_put_cluster(window, Int32(y), Int32(x), &codepoint, 1, attributes, pair)
            return
        }
        if let (first, second) = Self.regionalIndicatorPair(cell.grapheme), cell.width == 2 {
            // A flag: ncurses (libc) sees two one-column letters, terminals draw one
            // two-column flag or two letters. Either way the columns agree.
            writeCodepoints([first], x: x, y: y, attributes: attributes, pair: pair, window: window)
            writeCodepoints([second], x: x + 1, y: y, attributes: attributes, pair: pair, window: window)
            return
        }
        var (codepoints, columns) = Self.glyph(for: cell.grapheme)
        if columns < 1 || columns > cell.width {
            // libc would give it another width (or none): show a replacement
            // character rather than let ncurses' idea of the row drift from ours.
            codepoints = [0xFFFD]
            columns = 1
        }
        writeCodepoints(codepoints, x: x, y: y, attributes: attributes, pair: pair, window: window)
        var padding = x + columns
        while padding < x + cell.width {
            writeCodepoints([0x20], x: padding, y: y, attributes: attributes, pair: pair, window: window)
            padding += 1
        }
    }

    /// A cell holds at most `CCHARW_MAX` code points, so ncurses writes a longer cluster (a
    /// family 👨‍👩‍👧‍👦 is seven) cut. After `doupdate` has written the frame, each such cluster
    /// is written again whole where it stands, in as many columns as its cut form took: the
    /// terminal's `cup` (through `tiparm`) to its cell, its UTF-8, and `cup` back to where
    /// ncurses left the cursor, so ncurses' idea of the terminal stays true. All of them at
    /// every draw: ncurses may write a cell again to spare a cursor move. Lock held.
    private func writeLongClusters(of frame: ScreenBuffer, on window: UnsafeMutablePointer<WINDOW>, size: TerminalSize) {
        guard let output = outputFile else { return }
        let limit = Int(baton_cchar_max())
        var bytes: [UInt8] = []
        for y in 0..<min(frame.height, size.height) {
            for x in 0..<min(frame.width, size.width) {
                // Read in place: this looks at every cell of every frame, and almost none qualify.
                guard frame.cells[y * frame.width + x].utf8Count > limit else { continue }
                let cell = frame[x: x, y: y]
                guard !cell.isContinuation, x + cell.width <= size.width,
                      cell.grapheme.unicodeScalars.count > limit else { continue }
                let (_, columns) = Self.glyph(for: cell.grapheme)
                guard columns >= 1, columns <= cell.width, let move = baton_cursor_address(Int32(y), Int32(x)) else { continue }
                bytes += Self.removingPadding(Array(String(cString: move).utf8))
                bytes += cell.grapheme.utf8
            }
        }
        guard !bytes.isEmpty else { return }
        var cursorY: Int32 = 0
        var cursorX: Int32 = 0
        baton_getyx(window, &cursorY, &cursorX)
        guard let back = baton_cursor_address(cursorY, cursorX) else { return }
        bytes += Self.removingPadding(Array(String(cString: back).utf8))
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, output) }
        fflush(output)
    }

    private func writeCodepoints(
        _ codepoints: [wchar_t], x: Int, y: Int, attributes: attr_t, pair: Int16,
        window: UnsafeMutablePointer<WINDOW>
    ) {
        // Writing the bottom-right cell reports ERR (the cursor cannot advance)
        // although the cell is written, so the result is not checked.
        _ = codepoints.withUnsafeBufferPointer { buffer in
            baton_put_cluster(window, Int32(y), Int32(x), buffer.baseAddress, Int32(buffer.count), attributes, pair)
        }
    }

    /// The code points ncurses keeps in one cell for `grapheme` — the whole
    /// cluster, spacing scalars included (an Indic conjunct, a skin tone, a ZWJ
    /// sequence), cut to `CCHARW_MAX` for longer ones and then without a
    /// dangling zero-width joiner — and the columns libc's `wcwidth` gives its
    /// first scalar, which is what ncurses reserves for the cell.
    static func glyph(for grapheme: String) -> (codepoints: [wchar_t], columns: Int) {
        let scalars = grapheme.unicodeScalars
        guard let first = scalars.first else { return ([0x20], 1) }
        let limit = max(1, Int(baton_cchar_max()))
        var codepoints: [wchar_t] = scalars.prefix(limit).map { wchar_t(bitPattern: $0.value) }
        while codepoints.count > 1, codepoints.last == 0x200D {
            codepoints.removeLast()
        }
        return (codepoints, Int(baton_wcwidth(wchar_t(bitPattern: first.value))))
    }

    /// The two code points of a regional-indicator flag (🇺🇸), when libc gives each one column.
    static func regionalIndicatorPair(_ grapheme: String) -> (wchar_t, wchar_t)? {
        let scalars = Array(grapheme.unicodeScalars)
        let indicators: ClosedRange<UInt32> = 0x1F1E6...0x1F1FF
        guard scalars.count == 2, indicators.contains(scalars[0].value), indicators.contains(scalars[1].value) else {
            return nil
        }
        let pair = (wchar_t(bitPattern: scalars[0].value), wchar_t(bitPattern: scalars[1].value))
        guard baton_wcwidth(pair.0) == 1, baton_wcwidth(pair.1) == 1 else { return nil }
        return pair
    }

    /// The colour pair `start` made for `color` (one per colour, numbered from 1); 0, the
    /// terminal's own colours, for none.
    static func colorPair(for color: TerminalColor?) -> Int16 {
        Int16(color.map { $0.rawValue + 1 } ?? 0)
    }

    /// The ncurses attribute bits for `style`. Lock held.
    private func attributes(for style: Style) -> attr_t {
        var bits = baton_attr_normal()
        if style.bold { bits |= baton_attr_bold() }
        if style.dim { bits |= baton_attr_dim() }
        if style.reverse { bits |= baton_attr_reverse() }
        if style.underline { bits |= baton_attr_underline() }
        return bits
    }
}
