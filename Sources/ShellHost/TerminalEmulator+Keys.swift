internal import CVTerm
import BatonShell

/// How keys typed become libvterm's keys and modifiers, and the C0 byte Ctrl makes of a letter.
extension TerminalEmulator {
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

    static func modifier(_ modifiers: ShellModifiers) -> VTermModifier {
        VTermModifier(rawValue: UInt32(modifiers.rawValue))
    }

    static func vtermKey(_ key: ShellKey) -> VTermKey {
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
}
