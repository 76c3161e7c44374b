import BatonShell
@testable import ShellHost
import Testing

/// The control sequences libvterm 0.1.4 cannot take safely, found in a program's output and
/// kept from it: a REP with nothing to repeat (it never returned) and a sequence of more than 16
/// parameters (it wrote past its array).
@Suite("Sequences libvterm cannot take, kept from it")
struct SequenceGuardTests {
    /// What the guard stops at in `reads`, fed in turn: each as (read, offset, found).
    static func stops(_ reads: [String]) -> [(read: Int, offset: Int, found: SequenceGuard.Found)] {
        var guarded = SequenceGuard()
        var stops: [(Int, Int, SequenceGuard.Found)] = []
        for (index, read) in reads.enumerated() {
            let bytes = Array(read.utf8)
            bytes.withUnsafeBytes { buffer in
                var from = 0
                while let (offset, found) = guarded.next(in: buffer, from: from) {
                    stops.append((index, offset, found))
                    from = offset + 1
                }
            }
        }
        return stops
    }

    @Test("A REP's final byte is found, in one read or split between reads, and nothing that is not a REP")
    func repeats() {
        #expect(Self.stops(["x\u{1b}[5b"]).map(\.offset) == [4])
        #expect(Self.stops(["x\u{1b}[5b"]).map(\.found) == [.repeatFinal])
        #expect(Self.stops(["x\u{1b}", "[", "12", "b"]).map(\.read) == [3], "split between reads")
        #expect(Self.stops(["\u{1b}[b"]).count == 1, "no count: 1")
        #expect(Self.stops(["\u{1b}[\r5b"]).count == 1, "a C0 control inside is acted on; the sequence goes on")
        #expect(Self.stops(["\u{1b}\u{1b}[5b"]).count == 1, "a second ESC begins again")
        for text in ["b", "\u{1b}b", "\u{1b}[?5b", "\u{1b}[5 b", "\u{1b}[5\u{18}b", "\u{1b}[5\u{1a}b", "\u{1b}[5mb", "\u{1b}[5\u{85}b", "\u{1b}(b"] {
            #expect(Self.stops([text]).isEmpty, "\(String(reflecting: text))")
        }
    }

    @Test("Parameters past the sixteenth are found, their digits with them, and the final byte is not")
    func parameters() {
        let fifteen = String(repeating: ";", count: 15)
        #expect(Self.stops(["\u{1b}[1\(fifteen)2H"]).isEmpty, "16 parameters fit")
        let stops = Self.stops(["\u{1b}[1\(fifteen);7:8H"])
        #expect(stops.map(\.offset) == [18, 19, 20, 21], "the 16th separator and all after it, to the final byte")
        #expect(stops.allSatisfy { $0.found == .excessParameter })
        #expect(Self.stops(["\u{1b}[", String(repeating: ";", count: 10), String(repeating: ";", count: 10), "m"]).count == 5, "counted across reads")
        #expect(Self.stops(["\u{1b}[\(fifteen)m\u{1b}[\(fifteen)m"]).isEmpty, "counted per sequence")
    }

    @Test("A REP with no character drawn, or after one of width 0, is cancelled; after a character it repeats it")
    func emulatorRepeats() {
        let fresh = TerminalEmulator(rows: 4, columns: 10)
        fresh.write(Array("\u{1b}[5b".utf8))  // libvterm alone never returned from this
        #expect(fresh.screen.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
        fresh.write(Array("ok".utf8))
        #expect(fresh.screen.rows[0].map(\.grapheme).joined().hasPrefix("ok"), "the sequence was cancelled, the text after it drawn")

        let repeated = TerminalEmulator(rows: 4, columns: 10)
        repeated.write(Array("x".utf8))
        repeated.write(Array("\u{1b}[".utf8))
        repeated.write(Array("3b".utf8))
        #expect(repeated.screen.rows[0].map(\.grapheme).joined().hasPrefix("xxxx "))

        let mark = TerminalEmulator(rows: 4, columns: 10)
        mark.write(Array("a\u{1b}[3;4H\u{301}\u{1b}[4bz".utf8))  // a combining mark on its own: width 0
        #expect(mark.screen.rows[2].map(\.grapheme).joined().contains("z"))
    }

    @Test("A sequence of more than 16 parameters takes effect with its first 16, and the emulator goes on")
    func emulatorParameters() {
        let emulator = TerminalEmulator(rows: 10, columns: 20)
        let extra = String(repeating: ";", count: 30)
        emulator.write(Array("\u{1b}[5;10\(extra)7;8H".utf8))  // libvterm alone wrote past its array
        #expect(emulator.screen.cursorRow == 4 && emulator.screen.cursorColumn == 9)
        emulator.write(Array("\u{1b}[\(extra)m\u{1b}[2;3Hz".utf8))
        #expect(emulator.screen.rows[1].map(\.grapheme).joined().hasPrefix("  z"))
        #expect(emulator.stateCursor.row == 1 && emulator.stateCursor.column == 3)
    }
}
