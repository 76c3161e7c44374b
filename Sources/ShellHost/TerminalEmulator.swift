import BatonShell
internal import CVTerm
import Glibc

/// A program's screen: libvterm parses the program's output and its state layer draws on the
/// keeper's own cells (`EmulatorScreen`); a `ShellScreen` comes out, and keys typed are encoded
/// the way the program asked (application cursor keys, its mouse protocol, bracketed paste)
/// into bytes for the program.
///
/// Used from one task at a time. Rows written are read again only when the screen is asked
/// for, so a burst of output costs libvterm's parsing, not a screen per chunk.
public final class TerminalEmulator {
    let vterm: OpaquePointer
    /// The cells libvterm's state draws on (see `EmulatorScreen`), at a fixed address.
    let cells: UnsafeMutablePointer<EmulatorScreen>
    /// The screen as last read, less the rows damaged since.
    private var current: ShellScreen
    private var output: [UInt8] = []
    /// A `C2` that ended the last read: the start of a character, or to be dropped (`input`).
    var heldC2 = false
    /// Where libvterm's parser is, for the sequences it cannot take safely (`feed`).
    var sequences = SequenceGuard()

    /// Whether anything shown changed since the screen was last read.
    public var hasChanges: Bool { cells.pointee.changed }

    /// The screen's size, without reading it.
    public var size: (rows: Int, columns: Int) { (current.rowCount, current.columns) }

    /// The screen now.
    public var screen: ShellScreen {
        readDamagedRows()
        let cells = self.cells.pointee
        // libvterm restores a cursor saved before the screen was made smaller where it was.
        current.cursorRow = min(max(0, cells.cursorRow), current.rowCount - 1)
        current.cursorColumn = min(max(0, cells.cursorColumn), current.columns - 1)
        current.cursorVisible = cells.cursorVisible
        current.alternateScreen = cells.onAlternate
        current.mouse = ShellScreen.MouseMode(rawValue: cells.mouse) ?? .none
        current.title = cells.title
        self.cells.pointee.changed = false
        return current
    }

    public init(rows: Int, columns: Int) {
        vterm = vterm_new(Int32(rows), Int32(columns))
        vterm_set_utf8(vterm, 1)
        let state = vterm_obtain_state(vterm)
        cells = .allocate(capacity: 1)
        cells.initialize(to: EmulatorScreen(rows: rows, columns: columns))
        cells.pointee.state = state
        current = ShellScreen(rows: rows, columns: columns)
        vterm_state_set_callbacks(state, EmulatorScreen.callbacks, cells)
        let user = Unmanaged.passUnretained(self).toOpaque()
        vterm_output_set_callback(vterm, { bytes, count, user in
            guard let bytes else { return }
            TerminalEmulator.from(user).output.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
        }, user)
        vterm_state_reset(state, 1)
        _ = screen
    }

    deinit {
        vterm_free(vterm)
        cells.pointee.free()
        cells.deinitialize(count: 1)
        cells.deallocate()
    }

    private static func from(_ user: UnsafeMutableRawPointer?) -> TerminalEmulator {
        Unmanaged<TerminalEmulator>.fromOpaque(user!).takeUnretainedValue()
    }

    // MARK: - The program's side

    /// Takes what the program wrote; `hasChanges` says whether the screen changed.
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Takes what the program wrote, where it was read.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        // What plain text showed (`drawsPlainText`) counts from the last byte that was not plain:
        // the text up to it is parsed first, and what was seen of it forgotten.
        var plainStart = bytes.count
        while plainStart > 0, ScrolledText.isPlain(bytes[plainStart - 1]) { plainStart -= 1 }
        if plainStart > 0 {
            input(UnsafeRawBufferPointer(start: base, count: plainStart))
            cells.pointee.printed = false
            cells.pointee.scrolledWhole = false
        }
        if plainStart < bytes.count {
            input(UnsafeRawBufferPointer(start: base + plainStart, count: bytes.count - plainStart))
        }
    }

    /// Whether the emulator is drawing plain text as it stands, so that plain text that scrolls
    /// off may go unparsed (see `ScrolledText`).
    var drawsPlainText: Bool { cells.pointee.printed && cells.pointee.scrolledWhole }

    /// Bytes of the program's output left unparsed because they scrolled off unseen (`ScrolledText`).
    public internal(set) var skippedBytes = 0

    /// The program's terminal is now `rows` × `columns`.
    ///
    /// With fewer rows, the scrolling region goes back to the whole screen, as xterm's does on
    /// any resize (the program draws again on SIGWINCH), and the cursor stays where it was:
    /// libvterm keeps a region's top that is now below the last row, and its next line feed
    /// there would move memory by a negative length. With fewer rows or columns the cursor is
    /// also saved again (`ESC 7`) where it is: libvterm 0.1.4 restores a saved cursor (`ESC 8`)
    /// as it was, off a screen made smaller, and the characters written there then went outside
    /// its memory. A program that saved its cursor before such a resize finds it where the
    /// resize left the cursor; it draws again on SIGWINCH.
    public func resize(rows: Int, columns: Int) {
        readDamagedRows()
        cells.pointee.printed = false
        cells.pointee.scrolledWhole = false
        let fewer = rows < current.rowCount
        let narrower = columns < current.columns
        vterm_set_size(vterm, Int32(rows), Int32(columns))
        current.resize(rows: rows, columns: columns)
        if fewer {
            var cursor = VTermPos()
            vterm_state_get_cursorpos(cells.pointee.state, &cursor)
            write(Self.wholeScreenRegion(cursorRow: Int(cursor.row), cursorColumn: Int(cursor.col)))
        }
        if fewer || narrower { write(Self.saveCursor) }
    }

    /// Where libvterm's state has the cursor, unclamped (the screen reports it on the screen).
    var stateCursor: (row: Int, column: Int) {
        var cursor = VTermPos()
        vterm_state_get_cursorpos(cells.pointee.state, &cursor)
        return (Int(cursor.row), Int(cursor.col))
    }

    /// DECSC: the cursor, its pen and modes saved for the next `ESC 8`.
    static let saveCursor: [UInt8] = [0x1B, 0x37]

    /// DECSTBM for the whole screen (which homes the cursor), then the cursor put back.
    public static func wholeScreenRegion(cursorRow: Int, cursorColumn: Int) -> [UInt8] {
        Array("\u{1B}[r\u{1B}[\(cursorRow + 1);\(cursorColumn + 1)H".utf8)
    }

    /// Bytes libvterm wrote for the program (keys typed, answers to the program's queries)
    /// since the last call.
    public func takeOutput() -> [UInt8] {
        defer { output.removeAll(keepingCapacity: true) }
        return output
    }

    // MARK: - The user's side

    /// Encodes `input` for the program; the bytes are in `takeOutput()`.
    public func type(_ input: ShellInput) {
        switch input {
        case .text(let text, let modifiers):
            for scalar in text.unicodeScalars {
                // Ctrl with a letter (or @ [ \ ] ^ _) is its C0 byte, as every terminal sends it:
                // libvterm would send Ctrl-I, J, M and [ in a form (CSI u) shells do not read.
                if modifiers.contains(.control), !modifiers.contains(.shift), let byte = Self.controlByte(scalar) {
                    if modifiers.contains(.alt) { output.append(0x1B) }
                    output.append(byte)
                } else {
                    vterm_keyboard_unichar(vterm, scalar.value, Self.modifier(modifiers))
                }
            }
        case .key(let key, let modifiers):
            vterm_keyboard_key(vterm, Self.vtermKey(key), Self.modifier(modifiers))
        case .paste(let text):
            vterm_keyboard_start_paste(vterm)
            // A terminal sends a pasted line break as Return.
            for scalar in text.unicodeScalars { vterm_keyboard_unichar(vterm, scalar == "\n" ? 13 : scalar.value, VTERM_MOD_NONE) }
            vterm_keyboard_end_paste(vterm)
        case .mouse(let row, let column, let button, let pressed, let modifiers):
            let row = min(row, current.rowCount - 1), column = min(column, current.columns - 1)
            vterm_mouse_move(vterm, Int32(row), Int32(column), Self.modifier(modifiers))
            if button > 0 { vterm_mouse_button(vterm, Int32(button), pressed, Self.modifier(modifiers)) }
        }
    }

    // MARK: - Reading the screen

    private func readDamagedRows() {
        let screen = cells.pointee
        for row in 0..<min(screen.rows, current.rowCount) where screen.damaged[row] {
            current.setRow(row, Self.cells(of: screen, row: row))
            screen.damaged[row] = false
        }
    }

    /// Row `row` as the wire's cells, as libvterm's screen would read it: a cell is two wide
    /// when the next holds its right half; the whole screen's reverse video turns each cell's.
    private static func cells(of screen: EmulatorScreen, row: Int) -> [ShellCell] {
        let columns = screen.columns
        let raw = screen.row(row)
        let reverse: UInt8 = screen.reverse ? 16 : 0
        var cells: [ShellCell] = []
        cells.reserveCapacity(columns)
        var column = 0
        while column < columns {
            let cell = raw[column]
            let style = ShellStyle(
                foreground: ShellColor(wireValue: Int(cell.pen.foreground)) ?? .default,
                background: ShellColor(wireValue: Int(cell.pen.background)) ?? .default,
                attributes: ShellStyle.Attributes(rawValue: Int((cell.pen.attributes & 0x3F) ^ reverse)))
            let wide = column + 1 < columns && raw[column + 1].chars.0 == EmulatorScreen.continuation
            let grapheme = Self.grapheme(cell)
            if wide {
                cells.append(ShellCell(grapheme, width: 2, style: style))
                cells.append(.continuation(style))
                column += 2
            } else {
                cells.append(ShellCell(grapheme, width: 1, style: style))
                column += 1
            }
        }
        return cells
    }

    /// The cell's code points as a string: a blank when it has none or holds a control.
    private static func grapheme(_ cell: EmulatorCell) -> String {
        let first = cell.chars.0
        // Most cells: one printable ASCII character, or none.
        if first == 0 { return " " }
        if first >= 0x20, first < 0x7F, cell.chars.1 == 0 { return String(Character(Unicode.Scalar(UInt8(first)))) }
        var scalars = String.UnicodeScalarView()
        withUnsafeBytes(of: cell.chars) { bytes in
            for value in bytes.bindMemory(to: UInt32.self) {
                if value == 0 { break }
                guard let scalar = Unicode.Scalar(value), scalar.value >= 0x20, !(0x7F...0x9F).contains(scalar.value) else { continue }
                scalars.append(scalar)
            }
        }
        return scalars.isEmpty ? " " : String(scalars)
    }
}
