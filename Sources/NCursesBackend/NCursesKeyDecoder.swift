import CNCurses
import TerminalUI

/// Turns what `wget_wch` reports into `Key`s.
enum NCursesKeyDecoder {
    /// The key for a character `wget_wch` returned with status `OK`.
    static func key(forCharacter value: UInt32) -> Key {
        switch value {
        case 0: return .control("@")
        case 8, 127: return .backspace
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 1...26: return .control(Character(Unicode.Scalar(UInt8(value) + 0x60)))
        case 28: return .control("\\")
        case 29: return .control("]")
        case 30: return .control("^")
        case 31: return .control("_")
        case 0x80...0x9F: return .unknown(Int(value))
        default:
            guard let scalar = Unicode.Scalar(value) else { return .unknown(Int(value)) }
            return .character(Character(scalar))
        }
    }

    /// The key for a code `wget_wch` returned with status `KEY_CODE_YES`
    /// (`KEY_RESIZE` is handled by the caller).
    static func key(forKeyCode code: Int32) -> Key {
        switch code {
        case baton_key_up(): return .up
        case baton_key_down(): return .down
        case baton_key_left(): return .left
        case baton_key_right(): return .right
        case baton_key_home(): return .home
        case baton_key_end(): return .end
        case baton_key_page_up(): return .pageUp
        case baton_key_page_down(): return .pageDown
        case baton_key_delete(): return .delete
        case baton_key_backspace(): return .backspace
        case baton_key_enter(): return .enter
        case baton_key_back_tab(): return .backTab
        case baton_key_f(1)...baton_key_f(63): return .function(Int(code - baton_key_f(0)))
        default: return .unknown(Int(code))
        }
    }

    /// The key codes of the current terminal's arrows, Home, End, Page Up and Page Down with
    /// modifiers held, from its terminfo entry: the Shift ones by their standard names (`kLFT`,
    /// `kri`, …), the others by xterm's extended names, whose digit is 1 + the modifiers
    /// (Shift 1, Alt 2, Ctrl 4: `kLFT5` is Ctrl-Left). A terminal without them has none here,
    /// and those keys arrive as the terminal sends them. Lock held, screen set.
    static func modifiedKeyCodes() -> [Int32: Key] {
        let names: [(Key.Motion, shifted: String, base: String)] = [
            (.up, "kri", "kUP"), (.down, "kind", "kDN"), (.left, "kLFT", "kLFT"), (.right, "kRIT", "kRIT"),
            (.home, "kHOM", "kHOM"), (.end, "kEND", "kEND"), (.pageUp, "kPRV", "kPRV"), (.pageDown, "kNXT", "kNXT"),
        ]
        var codes: [Int32: Key] = [:]
        for (motion, shifted, base) in names {
            for bits in 1...7 {
                let name = bits == 1 ? shifted : base + String(bits + 1)
                let code = baton_key_code_of(name)
                if code > 0, codes[code] == nil {
                    codes[code] = .modified(motion, Key.Modifiers(rawValue: bits))
                }
            }
        }
        return codes
    }

    /// `events` with runs of `.character` keys joined where they form one
    /// grapheme cluster (e + U+0301 → é, emoji ZWJ sequences, flags), since
    /// ncurses reports one code point at a time; and Esc with the character read after it
    /// as `.alt` (what the terminal sends for Alt-C).
    static func mergingGraphemes(_ events: [TerminalEvent]) -> [TerminalEvent] {
        var result: [TerminalEvent] = []
        result.reserveCapacity(events.count)
        for event in events {
            // Esc and a character read together are one key: Alt with the character.
            if case let .key(.character(next)) = event, case .key(.escape)? = result.last,
               next.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) {
                result[result.count - 1] = .key(.alt(next))
                continue
            }
            if case let .key(.character(next)) = event,
               case let .key(.character(previous))? = result.last {
                let joined = String(previous) + String(next)
                if joined.count == 1, let merged = joined.first {
                    result[result.count - 1] = .key(.character(merged))
                    continue
                }
            }
            result.append(event)
        }
        return result
    }
}
