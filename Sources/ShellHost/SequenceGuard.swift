#if canImport(Glibc)
import Glibc
#endif

/// Finds, in what a program writes, the bytes of control sequences that libvterm 0.1.4 cannot
/// take safely, following its parser's states, so that the keeper can keep them from it
/// (`TerminalEmulator.feed`). Two were found by `scripts/fuzz screen`:
///
/// - **A REP with nothing to repeat.** `ESC [ n b` repeats the last character drawn, advancing
///   the cursor by that character's width until n columns are filled. Before any character was
///   drawn, or after one of width 0 (a combining mark drawn on its own), the width is 0 and the
///   loop never ends: `printf '\e[5b'` in a fresh session held the keeper's loop for good. xterm
///   ignores such a REP; the keeper cancels it.
/// - **More than 16 parameters.** libvterm keeps a sequence's parameters in an array of 16 and
///   does not check the count: each `;` or `:` past the fifteenth wrote a number past its end,
///   into the rest of its parser's memory (`printf '\e[;;;;;;;;;;;;;;;;;;;m'` crashed it, and the
///   numbers are the program's to choose). xterm keeps the parameters it has room for; the
///   keeper passes the first 16 and drops the rest, so the sequence still takes effect.
///
/// The states: an ESC begins an escape, which `[` makes a control sequence; C0 controls inside
/// either are acted on without ending it, NUL and DEL are ignored, CAN and SUB cancel, another ESC
/// begins again. Parameters are digits, `:` and `;`; a leader (`<` to `?`) or an intermediate
/// (space to `/`) means it is not a REP; a byte from `@` to `~` ends it (`b`: a REP), and a byte
/// from 0x80 on makes it invalid. Where the parser's rules are finer (an ESC inside a string,
/// intermediates before `[`, parameters after intermediates) the guard takes more sequences for
/// REPs, and counts more parameters, than libvterm does, never fewer.
struct SequenceGuard {
    enum State: Equatable {
        case ground
        case escape
        /// A control sequence: whether it may still end as a REP, and its `;` and `:` so far.
        case sequence(repeats: Bool, separators: Int)
    }

    /// What a byte the guard stopped at is.
    enum Found: Equatable {
        /// The final byte of a REP.
        case repeatFinal
        /// A parameter's byte past the sixteenth parameter.
        case excessParameter
    }

    /// The most separators a sequence's parameters may have: libvterm holds 16 parameters.
    static let separatorLimit = 15

    private(set) var state = State.ground

    /// The next byte in `bytes` from `start` on that the guard stops at, and what it is, with the
    /// state carried from the bytes before; nil when there is none, with the state as at the end.
    mutating func next(in bytes: UnsafeRawBufferPointer, from start: Int) -> (offset: Int, found: Found)? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index < bytes.count {
            if state == .ground {
                // Text and controls until the next ESC: nothing to follow.
                guard let escape = memchr(base + index, 0x1B, bytes.count - index) else { return nil }
                index = UnsafeRawPointer(escape) - base + 1
                state = .escape
                continue
            }
            if let found = take(bytes[index]) { return (index, found) }
            index += 1
        }
        return nil
    }

    /// One byte, in an escape or a sequence: what it is, when the guard stops at it.
    private mutating func take(_ byte: UInt8) -> Found? {
        switch byte {
        case 0x1B:
            state = .escape
            return nil
        case 0x18, 0x1A:
            state = .ground
            return nil
        case 0x00..<0x20, 0x7F:
            return nil
        default:
            break
        }
        switch state {
        case .ground:
            return nil
        case .escape:
            switch byte {
            case UInt8(ascii: "["): state = .sequence(repeats: true, separators: 0)
            case 0x20...0x2F, 0x80...: break  // intermediates; a byte libvterm leaves in the escape
            default: state = .ground
            }
            return nil
        case .sequence(let repeats, var separators):
            switch byte {
            case 0x30...0x3B:
                if byte == UInt8(ascii: ";") || byte == UInt8(ascii: ":") { separators += 1 }
                state = .sequence(repeats: repeats, separators: separators)
                return separators > Self.separatorLimit ? .excessParameter : nil
            case 0x3C...0x3F, 0x20...0x2F:
                state = .sequence(repeats: false, separators: separators)
                return nil
            case 0x40...0x7E:
                state = .ground
                return repeats && byte == UInt8(ascii: "b") ? .repeatFinal : nil
            default:
                state = .ground
                return nil
            }
        }
    }

    /// libvterm's parser is in its ground state (text that scrolled off unseen was left out there).
    mutating func reset() {
        state = .ground
    }
}
