import BatonShell
import CNCurses
import NCursesCore
#if canImport(Glibc)
import Glibc
#endif

/// The display's state on its `CursesTerminal`: what it last drew, its colour pairs, the mouse
/// mode, the key decoder, and the events. `ShellDisplay` is its public face. Everything mutable
/// is guarded by `CursesTerminal.lock`.
final class ShellDisplaySession: @unchecked Sendable, CursesInputHandler {
    let terminal: CursesTerminal
    let stream: AsyncStream<ShellDisplayEvent>
    let continuation: AsyncStream<ShellDisplayEvent>.Continuation
    /// Where events go instead of `stream`, from the input thread, when given.
    let handler: (@Sendable (ShellDisplayEvent) -> Void)?

    // Guarded by `CursesTerminal.lock`.
    var lastGrid: [[ShellCell]]?
    /// The screen's rows the last grid was drawn from.
    var lastSource: [[ShellCell]] = []
    /// The clusters too long for one ncurses cell in each row of the last grid.
    var lastLong: [[(column: Int, grapheme: String)]] = []
    var cursorVisible: Bool?
    var mouse = ShellScreen.MouseMode.none
    var colors = 0
    var pairs = ShellColorPairs()
    var decoder = ShellKeyDecoder()
    /// Set by a resize: the next draw clears the terminal and writes everything.
    var needsClear = false
    /// The terminal is sent nothing for `A_PROTECT`: while the bottom row is blank, its last cell
    /// is marked with it, so that ncurses does not compare the blank rows at the bottom on every
    /// refresh (`baton_mark_bottom_right`).
    var marksBottomRight = false
    /// Whether the last grid's bottom row is all blank.
    var bottomRowBlank = false
    /// Whether the terminal's bottom row is all blank: it was in the last grid, and that grid
    /// was drawn.
    var bottomRowShownBlank = false

    init(terminal: CursesTerminal, handler: (@Sendable (ShellDisplayEvent) -> Void)?) {
        self.terminal = terminal
        self.handler = handler
        (stream, continuation) = AsyncStream.makeStream(of: ShellDisplayEvent.self, bufferingPolicy: .unbounded)
        CursesTerminal.lock.withLock {
            if let screen = terminal.screen {
                set_term(screen)
                if baton_has_colors(), start_color() == OK {
                    // -1 must be the terminal's own colours: where it cannot be, cells are drawn without colour.
                    colors = use_default_colors() == OK ? Int(baton_colors()) : 0
                }
                marksBottomRight = baton_protect_is_invisible()
                mouseinterval(0)  // presses and releases as they come, not resolved into clicks
                _ = mousemask(0, nil)
            }
            terminal.activateSignalsLocked()
        }
        terminal.startReader(name: "baton.shell-display-input", handler: self)
    }

    /// Draws `screen` with `status` (see `ShellDisplay.show`): only what differs from the last
    /// draw, then one `doupdate`.
    func show(_ screen: ShellScreen, status: String?) {
        _ = terminal.withScreen { window in
            let size = terminal.sizeLocked()
            if needsClear {
                clearok(window, true)
                lastGrid = nil
                needsClear = false
            }
            let previous = lastGrid.map { ShellDisplayLayout.Drawn(source: lastSource, grid: $0) }
            let grid = ShellDisplayLayout.grid(
                screen, status: status, rows: size.rows, columns: size.columns, width: Self.width, reusing: previous)
            lastSource = Array(screen.rows.prefix(status == nil ? size.rows : size.rows - 1))
            let (full, runs) = ShellDisplayDiff.runs(from: lastGrid, to: grid)
            if full { werase(window) }
            for run in runs {
                for (offset, cell) in run.cells.enumerated() where !cell.isContinuation {
                    if full && cell == .blank { continue }
                    let (attributes, pair) = drawingStyle(cell.style)
                    CursesCells.put(
                        cell.grapheme, width: Int(cell.width), x: run.column + offset, y: run.row, columns: size.columns,
                        attributes: attributes, pair: pair, on: window)
                }
            }
            if marksBottomRight {
                if full || lastGrid?.count != grid.count || runs.contains(where: { $0.row == grid.count - 1 }) {
                    bottomRowBlank = grid.last?.allSatisfy { $0 == .blank } ?? false
                }
                // A row being blanked now is left to ncurses' clearing; it is marked a frame later.
                baton_mark_bottom_right(window, bottomRowBlank && bottomRowShownBlank && !full)
            }
            if let cursor = ShellDisplayLayout.cursor(of: screen, status: status, rows: size.rows, columns: size.columns) {
                wmove(window, Int32(cursor.row), Int32(cursor.column))
                if cursorVisible != true {
                    curs_set(1)
                    cursorVisible = true
                }
            } else if cursorVisible != false {
                curs_set(0)
                cursorVisible = false
            }
            if screen.mouse != mouse {
                _ = mousemask(ShellMouse.mask(for: screen.mouse), nil)
                mouse = screen.mouse
            }
            wnoutrefresh(window)
            doupdate()
            bottomRowShownBlank = bottomRowBlank
            // A row the diff did not touch has the long clusters it had.
            var touched = [Bool](repeating: full || lastLong.count != grid.count, count: grid.count)
            for run in runs where run.row < touched.count { touched[run.row] = true }
            if lastLong.count != grid.count { lastLong = Array(repeating: [], count: grid.count) }
            for y in grid.indices where touched[y] {
                lastLong[y] = Self.longClusters(in: grid[y], columns: size.columns)
            }
            // Nearly always there are none: nothing to gather, nothing to write.
            if let output = terminal.outputFile, lastLong.contains(where: { !$0.isEmpty }) {
                let clusters = lastLong.enumerated().flatMap { y, row in row.map { (row: y, column: $0.column, grapheme: $0.grapheme) } }
                CursesCells.writeWhole(clusters, window: window, output: output)
            }
            lastGrid = grid
        }
    }

    /// The clusters of `row` too long for one ncurses cell.
    static func longClusters(in row: [ShellCell], columns: Int) -> [(column: Int, grapheme: String)] {
        let limit = Int(baton_cchar_max())
        var clusters: [(column: Int, grapheme: String)] = []
        for (x, cell) in row.enumerated() where cell.grapheme.utf8.count > limit {
            if CursesCells.isLong(cell.grapheme, width: Int(cell.width), x: x, columns: columns) { clusters.append((x, cell.grapheme)) }
        }
        return clusters
    }

    /// How many columns libc gives a character (its first scalar), as ncurses will.
    static func width(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        return Int(baton_wcwidth(wchar_t(bitPattern: first.value)))
    }

    /// The attribute bits and colour pair for `style`, making the pair if it is new. Strike has
    /// no ncurses attribute and is left off. Lock held, screen set.
    func drawingStyle(_ style: ShellStyle) -> (attr_t, Int32) {
        var bits = baton_attr_normal()
        if style.attributes.contains(.bold) { bits |= baton_attr_bold() }
        if style.attributes.contains(.underline) { bits |= baton_attr_underline() }
        if style.attributes.contains(.italic) { bits |= baton_attr_italic() }
        if style.attributes.contains(.blink) { bits |= baton_attr_blink() }
        if style.attributes.contains(.reverse) { bits |= baton_attr_reverse() }
        guard colors > 0 else { return (bits, 0) }
        let fg = ShellPalette.number(for: style.foreground, colors: colors)
        let bg = ShellPalette.number(for: style.background, colors: colors)
        let (pair, isNew) = pairs.pair(fg: fg, bg: bg, limit: Int(baton_color_pairs()))
        if isNew, init_extended_pair(pair, fg, bg) != OK { return (bits, 0) }
        return (bits, pair)
    }

    var size: (rows: Int, columns: Int) {
        CursesTerminal.lock.withLock { terminal.sizeLocked() }
    }

    func shutdown() {
        guard terminal.shutdown() else { return }
        continuation.finish()
    }

    // MARK: Input (the input thread)

    func inputReadable() -> Bool {
        let (events, ended) = CursesTerminal.lock.withLock { () -> ([ShellDisplayEvent], Bool) in
            guard let screen = terminal.screen, !terminal.isShutDown else { return ([], false) }
            let ended = terminal.inputHasEnded()
            if ended == true { return ([], true) }
            set_term(screen)
            let events = readLocked()
            return (events, ended == nil && events.isEmpty)
        }
        emit(events)
        if ended { continuation.finish() }
        return ended
    }

    func windowChanged() {
        let events = CursesTerminal.lock.withLock { () -> [ShellDisplayEvent] in
            guard let screen = terminal.screen, !terminal.isShutDown else { return [] }
            set_term(screen)
            guard terminal.resizeToWindowLocked() else { return [] }
            return readLocked()
        }
        emit(events)
    }

    private func emit(_ events: [ShellDisplayEvent]) {
        if let handler {
            events.forEach(handler)
        } else {
            for event in events { continuation.yield(event) }
        }
    }

    func terminated(by signal: Int32) {
        continuation.finish()
        TerminalSignals.raiseWithDefaultAction(signal)
    }

    /// Drains `wget_wch` (nodelay mode) and decodes what it gave. Lock held, screen set.
    private func readLocked() -> [ShellDisplayEvent] {
        let window = baton_stdscr()
        var reads: [ShellKeyDecoder.Read] = []
        // Bounded so a flood of input cannot hold the lock for long; poll reports the rest.
        while reads.count < 4096 {
            let result = baton_get_wch(window)
            if result.status == ERR { break }
            guard result.status == baton_key_code_yes() else {
                reads.append(.character(result.value))
                continue
            }
            let code = Int32(bitPattern: result.value)
            switch code {
            case baton_key_resize():
                let size = terminal.sizeLocked()
                needsClear = true
                reads.append(.resize(rows: size.rows, columns: size.columns))
            case baton_key_paste_start():
                reads.append(.pasteStart)
            case baton_key_paste_end():
                reads.append(.pasteEnd)
            case baton_key_mouse():
                let event = baton_get_mouse()
                if event.ok != 0 { reads.append(.mouse(row: Int(event.row), column: Int(event.column), state: UInt(event.state))) }
            default:
                if let name = keyname(code) { reads.append(.key(String(cString: name))) }
            }
        }
        return decoder.decode(reads)
    }
}
