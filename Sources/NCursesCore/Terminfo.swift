import CNCurses
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `CursesTerminal` reads from terminfo and sends through it: bracketed paste, the other
/// Home and End sequences, capabilities as bytes. Every function runs with `CursesTerminal.lock`
/// held and the terminal's screen set.
package enum Terminfo {
    /// Turns bracketed paste on when the terminal's terminfo says how (the extended
    /// capabilities `BE` and `BD` switch it on and off, `PS` and `PE` are the markers around a
    /// paste): the markers become keys of their own (`define_key`), and `BE` is sent through
    /// `tputs`. A terminal without them gets pastes as typed keys. Lock held, screen set.
    package static func startBracketedPaste(_ output: UnsafeMutablePointer<FILE>) -> Bool {
        guard let on = capability("BE"), capability("BD") != nil,
              let start = capability("PS"), let end = capability("PE") else { return false }
        guard define_key(start, baton_key_paste_start()) == OK, define_key(end, baton_key_paste_end()) == OK else {
            return false
        }
        return send(on, to: output)
    }

    /// Terminal types whose Home, End and arrow keys (terminfo `khome`, `kend`, `kcuu1`, `kcud1`,
    /// `kcub1`, `kcuf1`) a terminal may send whatever `TERM` says: tmux and screen send `kend`
    /// as tmux's entry has it to a program whose `TERM` is xterm's, xterm sends its own, and
    /// xterm outside keypad mode sends Home and End as cons25's entry has them and the arrows as
    /// linux's does (a program before this one may have left the terminal in that mode).
    package static let otherKeyTypes = ["tmux", "screen", "linux", "xterm", "cons25"]

    /// Read once per process. Guarded by `CursesTerminal.lock`.
    nonisolated(unsafe) private static var otherKeysRead: [(String, Int32)]?

    /// The Home, End and arrow key strings of `otherKeyTypes`' terminfo entries (those the system
    /// has), with the key codes they stand for. Bound with `define_key` where the terminal's
    /// own entry leaves them unbound, so End from tmux is End and not "[4~" typed. Lock held.
    package static func otherTerminalKeys(fd: Int32) -> [(String, Int32)] {
        if let read = otherKeysRead { return read }
        var keys: [(String, Int32)] = []
        var buffer = [CChar](repeating: 0, count: 64)
        for type in otherKeyTypes {
            for (name, code) in [
                ("khome", baton_key_home()), ("kend", baton_key_end()), ("kcuu1", baton_key_up()),
                ("kcud1", baton_key_down()), ("kcub1", baton_key_left()), ("kcuf1", baton_key_right()),
            ] {
                let length = baton_terminfo_string_of(type, name, fd, &buffer, Int32(buffer.count))
                guard length > 0 else { continue }
                let sequence = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !keys.contains(where: { $0.0 == sequence }) { keys.append((sequence, code)) }
            }
        }
        otherKeysRead = keys
        return keys
    }

    /// What `tputs` makes of a capability, gathered here (ncurses' `putp` writes to the
    /// process's standard output, not the screen's). Guarded by `CursesTerminal.lock`.
    nonisolated(unsafe) private static var tputsBytes: [UInt8] = []

    /// Writes a capability to the screen's output through `tputs` (padding applied) and flushes. Lock held.
    package static func send(_ capability: UnsafeMutablePointer<CChar>, to output: UnsafeMutablePointer<FILE>) -> Bool {
        tputsBytes.removeAll(keepingCapacity: true)
        guard tputs(capability, 1, { character in
            Terminfo.tputsBytes.append(UInt8(truncatingIfNeeded: character))
            return character
        }) == OK else { return false }
        let written = tputsBytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, output) }
        return written == tputsBytes.count && fflush(output) == 0
    }

    /// A string capability as ncurses holds it, or nil when the terminal lacks it. Lock held.
    package static func capability(_ name: String) -> UnsafeMutablePointer<CChar>? {
        guard let value = name.withCString({ tigetstr($0) }), Int(bitPattern: value) != -1 else { return nil }
        return value
    }

    /// What turns mouse reports off on this terminal (`XM` with 0), padding removed; empty when
    /// the terminal has no `XM`. Lock held, screen set.
    package static func mouseOffBytes() -> [UInt8] {
        guard let off = baton_mouse_off_string() else { return [] }
        return removingPadding(Array(String(cString: off).utf8))
    }

    /// `$TERM`, or nil when unset.
    package static func environmentTerm() -> String? {
        getenv("TERM").map { String(cString: $0) }
    }

    /// The bytes of a string capability of the current terminal, or nil. Lock held, screen set.
    package static func terminfoBytes(_ capability: String) -> [UInt8]? {
        guard let value = capability.withCString({ tigetstr($0) }) else { return nil }
        if Int(bitPattern: value) == -1 { return nil }  // not a string capability
        let length = strlen(value)
        return value.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// `bytes` without terminfo padding specifications (`$<5>`, `$<2*/>`), which
    /// only `tputs` understands; written raw they would show up as text.
    package static func removingPadding(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "$"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "<"),
               let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: ">")),
               bytes[(index + 2)..<close].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2A || $0 == 0x2F }) {
                index = close + 1
                continue
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }
}
