import BatonShell
internal import CVTerm

/// A program's screen as libvterm holds it: the program's output goes in, a `ShellScreen` comes
/// out, and keys typed are encoded the way the program asked (application cursor keys, its
/// mouse protocol, bracketed paste) into bytes for the program.
///
/// Used from one task at a time. Rows libvterm reports damaged are read again only when the
/// screen is asked for, so a burst of output costs libvterm's parsing, not a screen per chunk.
public final class TerminalEmulator {
    private let vterm: OpaquePointer
    private let vtermScreen: OpaquePointer
    private var callbacks = VTermScreenCallbacks()
    /// The screen as last read, less the rows damaged since.
    private var current: ShellScreen
    /// Rows damaged since the screen was last read.
    private var damagedRows: [Bool]
    /// Whether anything shown changed since the screen was last read.
    public private(set) var hasChanges = false
    private var output: [UInt8] = []

    /// The screen's size, without reading it.
    public var size: (rows: Int, columns: Int) { (current.rowCount, current.columns) }

    /// The screen now.
    public var screen: ShellScreen {
        readDamagedRows()
        hasChanges = false
        return current
    }

    public init(rows: Int, columns: Int) {
        vterm = vterm_new(Int32(rows), Int32(columns))
        vterm_set_utf8(vterm, 1)
        vtermScreen = vterm_obtain_screen(vterm)
        current = ShellScreen(rows: rows, columns: columns)
        damagedRows = Array(repeating: false, count: current.rowCount)
        callbacks.damage = { rect, user in
            TerminalEmulator.from(user).damaged(Int(rect.start_row)..<Int(rect.end_row))
            return 1
        }
        callbacks.movecursor = { position, _, visible, user in
            let emulator = TerminalEmulator.from(user)
            emulator.current.cursorRow = Int(position.row)
            emulator.current.cursorColumn = Int(position.col)
            emulator.hasChanges = true
            _ = visible
            return 1
        }
        callbacks.settermprop = { property, value, user in
            TerminalEmulator.from(user).set(property, value)
            return 1
        }
        let user = Unmanaged.passUnretained(self).toOpaque()
        vterm_screen_set_callbacks(vtermScreen, &callbacks, user)
        vterm_screen_enable_altscreen(vtermScreen, 1)
        // One damage report per flush, not one per cell: rows are read whole anyway.
        vterm_screen_set_damage_merge(vtermScreen, VTERM_DAMAGE_SCREEN)
        vterm_output_set_callback(vterm, { bytes, count, user in
            guard let bytes else { return }
            TerminalEmulator.from(user).output.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
        }, user)
        vterm_screen_reset(vtermScreen, 1)
        readDamagedRows()
        hasChanges = false
    }

    deinit { vterm_free(vterm) }

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
        guard let base = bytes.baseAddress else { return }
        _ = vterm_input_write(vterm, base.assumingMemoryBound(to: CChar.self), bytes.count)
        vterm_screen_flush_damage(vtermScreen)
    }

    /// The program's terminal is now `rows` × `columns`.
    public func resize(rows: Int, columns: Int) {
        readDamagedRows()
        vterm_set_size(vterm, Int32(rows), Int32(columns))
        current.resize(rows: rows, columns: columns)
        damagedRows = Array(repeating: true, count: current.rowCount)
        vterm_screen_flush_damage(vtermScreen)
        hasChanges = true
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

    /// The C0 byte Ctrl makes of `scalar`, or nil when it makes none.
    static func controlByte(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "a"..."z": UInt8(scalar.value - 0x60)
        case "@", "[", "\\", "]", "^", "_": UInt8(scalar.value & 0x1F)
        case " ": 0
        case "?": 0x7F
        default: nil
        }
    }

    private static func modifier(_ modifiers: ShellModifiers) -> VTermModifier {
        VTermModifier(rawValue: UInt32(modifiers.rawValue))
    }

    private static func vtermKey(_ key: ShellKey) -> VTermKey {
        switch key {
        case .enter: VTERM_KEY_ENTER
        case .tab: VTERM_KEY_TAB
        case .backspace: VTERM_KEY_BACKSPACE
        case .escape: VTERM_KEY_ESCAPE
        case .up: VTERM_KEY_UP
        case .down: VTERM_KEY_DOWN
        case .left: VTERM_KEY_LEFT
        case .right: VTERM_KEY_RIGHT
        case .insert: VTERM_KEY_INS
        case .delete: VTERM_KEY_DEL
        case .home: VTERM_KEY_HOME
        case .end: VTERM_KEY_END
        case .pageUp: VTERM_KEY_PAGEUP
        case .pageDown: VTERM_KEY_PAGEDOWN
        case .function(let n): VTermKey(rawValue: VTERM_KEY_FUNCTION_0.rawValue + UInt32(n))
        }
    }

    // MARK: - Reading the screen

    private func damaged(_ rows: Range<Int>) {
        for row in rows.clamped(to: 0..<damagedRows.count) { damagedRows[row] = true }
        hasChanges = true
    }

    private func set(_ property: VTermProp, _ value: UnsafeMutablePointer<VTermValue>?) {
        guard let value else { return }
        hasChanges = true
        switch property {
        case VTERM_PROP_CURSORVISIBLE: current.cursorVisible = value.pointee.boolean != 0
        case VTERM_PROP_ALTSCREEN: current.alternateScreen = value.pointee.boolean != 0
        case VTERM_PROP_MOUSE: current.mouse = ShellScreen.MouseMode(rawValue: Int(value.pointee.number)) ?? .none
        case VTERM_PROP_TITLE:
            guard let pointer = value.pointee.string else { return }
            let title = String(cString: pointer)
            current.title = String(String.UnicodeScalarView(title.unicodeScalars.filter { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }).prefix(200))
        default: break
        }
    }

    private func readDamagedRows() {
        for row in damagedRows.indices where damagedRows[row] {
            current.setRow(row, readRow(row))
            damagedRows[row] = false
        }
    }

    private func readRow(_ row: Int) -> [ShellCell] {
        var cells: [ShellCell] = []
        let columns = current.columns
        cells.reserveCapacity(columns)
        var raw = baton_vterm_cell()
        var column = 0
        while column < columns {
            guard baton_vterm_get_cell(vtermScreen, Int32(row), Int32(column), &raw) != 0 else {
                cells.append(.blank)
                column += 1
                continue
            }
            let style = ShellStyle(
                foreground: ShellColor(wireValue: Int(raw.foreground)) ?? .default,
                background: ShellColor(wireValue: Int(raw.background)) ?? .default,
                attributes: ShellStyle.Attributes(rawValue: Int(raw.attributes)))
            let grapheme = Self.grapheme(raw)
            if raw.width == 2, column + 1 < columns {
                cells.append(ShellCell(grapheme, width: 2, style: style))
                cells.append(.continuation(style))
                column += 2
            } else {
                cells.append(ShellCell(raw.width == 2 ? " " : grapheme, width: 1, style: style))
                column += 1
            }
        }
        return cells
    }

    /// The cell's code points as a string: a blank when it has none or holds a control.
    private static func grapheme(_ raw: baton_vterm_cell) -> String {
        let count = Int(raw.count)
        guard count > 0 else { return " " }
        // Most cells: one printable ASCII character.
        if count == 1, raw.chars.0 >= 0x20, raw.chars.0 < 0x7F { return String(Character(Unicode.Scalar(UInt8(raw.chars.0)))) }
        var scalars = String.UnicodeScalarView()
        withUnsafeBytes(of: raw.chars) { bytes in
            for value in bytes.bindMemory(to: UInt32.self).prefix(count) {
                guard let scalar = Unicode.Scalar(value), scalar.value >= 0x20, !(0x7F...0x9F).contains(scalar.value) else { continue }
                scalars.append(scalar)
            }
        }
        return scalars.isEmpty ? " " : String(scalars)
    }
}
