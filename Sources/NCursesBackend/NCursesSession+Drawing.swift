import CNCurses
import NCursesCore
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

            // Whether the frame may hold a cluster too long for a cell, which is written again
            // whole after `doupdate`: only when the last frame held one or a changed cell is one.
            // A frame without one (almost every frame, emoji and all) is not looked through cell
            // by cell.
            var mayHoldLongClusters = true
            if let lastFrame, lastFrame.size == frame.size, lastScreenSize == screenSize {
                let changes = frame.diff(from: lastFrame)
                putChanges(changes, on: window, size: screenSize)
                let limit = Int(baton_cchar_max())
                mayHoldLongClusters = lastFrameHeldLongClusters || changes.contains { change in
                    change.cell.utf8Count > limit && !change.cell.isContinuation
                        && CursesCells.isLong(change.cell.grapheme, width: change.cell.width, x: change.x, columns: screenSize.width)
                }
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
            lastFrameHeldLongClusters = mayHoldLongClusters && writeLongClusters(of: frame, on: window, size: screenSize)
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
            // As in `CursesCells.put`: the bottom-right cell can report ERR although written.
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
        guard y < size.height else { return }
        CursesCells.put(
            cell.grapheme, width: cell.width, x: x, y: y, columns: size.width,
            attributes: attributes(for: cell.style), pair: Int32(Self.colorPair(for: cell.style.foreground)), on: window)
    }

    /// Writes again, whole, the clusters too long for one ncurses cell (`CursesCells.writeWhole`);
    /// says whether there were any. Lock held.
    private func writeLongClusters(of frame: ScreenBuffer, on window: UnsafeMutablePointer<WINDOW>, size: TerminalSize) -> Bool {
        guard let output = outputFile else { return true }
        let limit = Int(baton_cchar_max())
        var clusters: [(row: Int, column: Int, grapheme: String)] = []
        // Every cell of every frame is looked at, and almost none qualify: the first pass is
        // TerminalUI's, over the cells' lengths in place.
        for (x, y) in frame.places(ofGraphemesLongerThan: limit) where x < size.width && y < size.height {
            let cell = frame[x: x, y: y]
            guard !cell.isContinuation, CursesCells.isLong(cell.grapheme, width: cell.width, x: x, columns: size.width) else { continue }
            clusters.append((y, x, cell.grapheme))
        }
        CursesCells.writeWhole(clusters, window: window, output: output)
        return !clusters.isEmpty
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
