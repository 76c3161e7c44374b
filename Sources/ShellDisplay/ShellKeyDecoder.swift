import BatonShell

/// Turns what ncurses reads from the terminal into what the user typed, as `ShellInput`. Pure:
/// the display hands it each read (`Read`); it keeps only the paste being read across batches.
struct ShellKeyDecoder {
    /// One result of `wget_wch`, as the display saw it.
    enum Read: Hashable {
        /// A character (status `OK`).
        case character(UInt32)
        /// A key code (`KEY_CODE_YES`), by its name from `keyname`: "KEY_LEFT", "KEY_F(13)",
        /// or a terminfo extended name such as "kUP5".
        case key(String)
        /// The terminal's paste markers, bound with `define_key`.
        case pasteStart, pasteEnd
        /// A mouse event ncurses decoded (`getmouse`).
        case mouse(row: Int, column: Int, state: UInt)
        /// The terminal's new size (`KEY_RESIZE`).
        case resize(rows: Int, columns: Int)
    }

    /// The paste being read, between its markers; nil outside a paste.
    private(set) var pasteText: String?

    /// The events of one batch of reads, in order. Printable characters that arrive together
    /// are one `.text`; an Escape followed by a key in the same batch (ncurses waits the escape
    /// delay for it) is that key with Alt; an Escape last in the batch is the Escape key.
    mutating func decode(_ reads: [Read]) -> [ShellDisplayEvent] {
        var events: [ShellDisplayEvent] = []
        var escape = false
        func add(_ input: ShellInput) {
            if escape {
                escape = false
                events.append(.input(Self.addingAlt(to: input)))
            } else if case .text(let more, let modifiers) = input, modifiers.isEmpty,
                      case .input(.text(let text, let previous))? = events.last, previous.isEmpty {
                events[events.count - 1] = .input(.text(text + more, modifiers: []))
            } else {
                events.append(.input(input))
            }
        }
        for read in reads {
            if var paste = pasteText {
                switch read {
                case .character(let value):
                    if let scalar = Unicode.Scalar(value), !Self.isControl(scalar) || "\t\n\r".unicodeScalars.contains(scalar) {
                        paste.unicodeScalars.append(scalar)
                    }
                    pasteText = paste
                case .pasteEnd:
                    events.append(.input(.paste(paste)))
                    pasteText = nil
                case .resize(let rows, let columns):
                    events.append(.resize(rows: rows, columns: columns))
                case .key, .pasteStart, .mouse:
                    break  // a key sequence inside a paste (an escape sequence pasted) is dropped
                }
                continue
            }
            switch read {
            case .character(27):
                if escape { add(.key(.escape, modifiers: [])) } else { escape = true }
            case .character(let value):
                if let input = Self.input(forCharacter: value) { add(input) }
            case .key(let name):
                if let input = Self.input(forKeyName: name) { add(input) }
            case .pasteStart:
                if escape { events.append(.input(.key(.escape, modifiers: []))) }
                escape = false
                pasteText = ""
            case .pasteEnd:
                break
            case .mouse(let row, let column, let state):
                if escape { events.append(.input(.key(.escape, modifiers: []))) }
                escape = false
                events += ShellMouse.inputs(row: row, column: column, state: state).map { .input($0) }
            case .resize(let rows, let columns):
                events.append(.resize(rows: rows, columns: columns))
            }
        }
        if escape { events.append(.input(.key(.escape, modifiers: []))) }
        return events
    }

    static func addingAlt(to input: ShellInput) -> ShellInput {
        switch input {
        case .text(let text, let modifiers): .text(text, modifiers: modifiers.union(.alt))
        case .key(let key, let modifiers): .key(key, modifiers: modifiers.union(.alt))
        default: input
        }
    }

    /// C0 and C1 controls and DEL.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// A character `wget_wch` returned: printable text, a control byte as its letter with Ctrl
    /// (0x01 is "a"), or Tab, Enter, Backspace, Escape as keys; nil for what is none of them
    /// (a C1 control, a value that is no scalar).
    static func input(forCharacter value: UInt32) -> ShellInput? {
        switch value {
        case 0: return .text(" ", modifiers: .control)
        case 9: return .key(.tab, modifiers: [])
        case 13: return .key(.enter, modifiers: [])
        case 27: return .key(.escape, modifiers: [])
        case 127: return .key(.backspace, modifiers: [])
        case 1...26: return .text(String(UnicodeScalar(UInt8(value) + 0x60)), modifiers: .control)
        case 28...31: return .text(String(UnicodeScalar(UInt8(value) + 0x40)), modifiers: .control)
        default:
            guard let scalar = Unicode.Scalar(value), !isControl(scalar) else { return nil }
            return .text(String(scalar), modifiers: [])
        }
    }

    /// The keys ncurses names with standard codes.
    static let standardKeys: [String: (ShellKey, ShellModifiers)] = [
        "KEY_UP": (.up, []), "KEY_DOWN": (.down, []), "KEY_LEFT": (.left, []), "KEY_RIGHT": (.right, []),
        "KEY_HOME": (.home, []), "KEY_END": (.end, []), "KEY_IC": (.insert, []), "KEY_DC": (.delete, []),
        "KEY_PPAGE": (.pageUp, []), "KEY_NPAGE": (.pageDown, []), "KEY_BACKSPACE": (.backspace, []),
        "KEY_ENTER": (.enter, []), "KEY_BTAB": (.tab, .shift),
        "KEY_SR": (.up, .shift), "KEY_SF": (.down, .shift), "KEY_SLEFT": (.left, .shift), "KEY_SRIGHT": (.right, .shift),
        "KEY_SHOME": (.home, .shift), "KEY_SEND": (.end, .shift), "KEY_SIC": (.insert, .shift), "KEY_SDC": (.delete, .shift),
        "KEY_SPREVIOUS": (.pageUp, .shift), "KEY_SNEXT": (.pageDown, .shift),
        // The keypad's corners, where terminfo names them (vt100-style keypads).
        "KEY_A1": (.home, []), "KEY_A3": (.pageUp, []), "KEY_C1": (.end, []), "KEY_C3": (.pageDown, []),
    ]

    /// The stems of terminfo's extended names for modified keys (xterm's `kUP5`, `kLFT3`, …).
    static let extendedStems: [String: ShellKey] = [
        "kUP": .up, "kDN": .down, "kLFT": .left, "kRIT": .right, "kHOM": .home, "kEND": .end,
        "kIC": .insert, "kDC": .delete, "kPRV": .pageUp, "kNXT": .pageDown,
    ]

    /// A key code by its name (`keyname`): a standard one, "KEY_F(n)" for F1–F63 (ncurses gives
    /// shifted F-keys as F13 and up, and they stay so), or an extended name whose digit 2–8 is
    /// xterm's modifier parameter (that number less one: 1 Shift, 2 Alt, 4 Ctrl; no digit is
    /// Shift). Nil for a key Baton does not send.
    static func input(forKeyName name: String) -> ShellInput? {
        if let (key, modifiers) = standardKeys[name] { return .key(key, modifiers: modifiers) }
        if name.hasPrefix("KEY_F("), name.hasSuffix(")"), let n = Int(name.dropFirst(6).dropLast()), (1...63).contains(n) {
            return .key(.function(n), modifiers: [])
        }
        var stem = Substring(name)
        var parameter = 2
        if let last = stem.last, let digit = last.wholeNumberValue {
            guard (2...8).contains(digit) else { return nil }
            parameter = digit
            stem = stem.dropLast()
        }
        guard let key = extendedStems[String(stem)] else { return nil }
        return .key(key, modifiers: ShellModifiers(rawValue: parameter - 1))
    }
}
