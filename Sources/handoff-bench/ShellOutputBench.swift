import CVTerm
import Foundation
import NIOCore
import ShellHost

/// `handoff-bench shell-output [megabytes] [rounds]`: how fast a shell session's keeper can take
/// a flood of output (`cat` of a big file), and how much of that is libvterm's. The text is
/// `bench/shell_bench.py`'s (lines of 239 printable ASCII characters), fed in 4 KB reads as the
/// keeper reads its pty, into an 80 × 24 screen. Each is the median of `rounds`, in ms per
/// 100 MB, so that it reads beside the bench's `cat` through ssh:
///
/// - the keeper's emulator (`TerminalEmulator`: libvterm's parser and state drawing on the
///   keeper's own cells), with the screen read once at the end;
/// - the same, the reads taken 64 at a time, as the keeper's parser takes them under a flood,
///   so that the lines that scroll off unseen go unparsed (`ScrolledText`);
/// - libvterm's own screen layer, as the keeper kept its screen before (its damage merged per
///   screen, read once at the end);
/// - libvterm's parser and state alone, no screen: what any screen kept on libvterm costs at least;
/// - one pass over the bytes (a sum): the floor of touching them at all;
/// - the keeper's emulator and libvterm's parser and state again, on coloured lines (an SGR every
///   20 characters, as `ls --color` or a compiler's errors write): what following the escape
///   sequences costs the keeper (`SequenceGuard`) beside what they cost libvterm.
enum ShellOutputBench {
    static func run(megabytes: Int, rounds: Int) {
        let text = text(megabytes: megabytes)
        let scale = 100.0 / (Double(text.count) / 1e6)
        print("shell output: \(text.count / 1_000_000) MB of 239-character lines, 4 KB reads, 80 × 24; ms per 100 MB (median of \(rounds))")
        func line(_ name: String, _ body: () -> Int) {
            var results: [Double] = []
            var sink = 0
            for _ in 0..<rounds {
                let start = ContinuousClock.now
                sink &+= body()
                let (s, atto) = (ContinuousClock.now - start).components
                results.append((Double(s) * 1e3 + Double(atto) / 1e15) * scale)
            }
            let padded = name.padding(toLength: 56, withPad: " ", startingAt: 0)
            print("  \(padded) " + String(format: "%8.0f ms", results.sorted()[results.count / 2]) + "  (\(sink & 1))")
        }
        let coloured = colouredText(megabytes: megabytes)
        func feed(_ vterm: OpaquePointer, _ text: [UInt8]) {
            text.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + 4096, bytes.count)
                    _ = vterm_input_write(vterm, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), end - offset)
                    offset = end
                }
            }
        }
        func emulate(_ text: [UInt8]) -> Int {
            let emulator = TerminalEmulator(rows: 24, columns: 80)
            text.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + 4096, bytes.count)
                    emulator.write(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                    offset = end
                }
            }
            return emulator.screen.cursorRow
        }
        line("the keeper's emulator (its cells on libvterm's state)") { emulate(text) }
        line("the keeper's emulator, reads taken in runs of 64") {
            let emulator = TerminalEmulator(rows: 24, columns: 80)
            var run: [ByteBuffer] = []
            text.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + 4096, bytes.count)
                    run.append(ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes[offset..<end])))
                    offset = end
                    if run.count == 64 || offset == bytes.count {
                        emulator.write(run: run)
                        run.removeAll(keepingCapacity: true)
                    }
                }
            }
            return emulator.screen.cursorRow &+ emulator.skippedBytes
        }
        /// A UTF-8 libvterm of 24 × 80 for `body`, freed after.
        func withVTerm(_ body: (OpaquePointer) -> Int) -> Int {
            let vterm = vterm_new(24, 80)!
            defer { vterm_free(vterm) }
            vterm_set_utf8(vterm, 1)
            return body(vterm)
        }
        line("libvterm's screen layer (the keeper's before)") { withVTerm { vterm in
            let screen = vterm_obtain_screen(vterm)
            vterm_screen_enable_altscreen(screen, 1)
            vterm_screen_set_damage_merge(screen, VTERM_DAMAGE_SCREEN)
            vterm_screen_reset(screen, 1)
            feed(vterm, text)
            vterm_screen_flush_damage(screen)
            var cell = baton_vterm_cell()
            return (0..<24).reduce(0) { sum, row in sum + Int(baton_vterm_get_cell(screen, Int32(row), 0, &cell)) + Int(cell.chars.0) }
        } }
        func stateAlone(_ text: [UInt8]) -> Int {
            withVTerm { vterm in
                let state = vterm_obtain_state(vterm)
                vterm_state_reset(state, 1)
                feed(vterm, text)
                var position = VTermPos()
                vterm_state_get_cursorpos(state, &position)
                return Int(position.row)
            }
        }
        line("libvterm's parser and state, no screen") { stateAlone(text) }
        line("one pass over the bytes") {
            text.withUnsafeBytes { bytes in bytes.reduce(0) { $0 &+ Int($1) } }
        }
        line("coloured lines: the keeper's emulator") { emulate(coloured) }
        line("coloured lines: libvterm's parser and state, no screen") { stateAlone(coloured) }
    }

    /// As many bytes as `text(megabytes:)`, of the same lines with an SGR (bold and one of eight
    /// colours) before every 20 characters and a reset after.
    static func colouredText(megabytes: Int) -> [UInt8] {
        let plain = text(megabytes: megabytes)
        var text: [UInt8] = []
        text.reserveCapacity(plain.count + plain.count / 2)
        var column = 0
        for byte in plain where text.count < plain.count {
            if byte == 13 || byte == 10 {
                column = 0
            } else if column % 20 == 0 {
                text += Array("\u{1b}[0m\u{1b}[1;3\((column / 20) % 8)m".utf8)
            }
            if byte != 13 && byte != 10 { column += 1 }
            text.append(byte)
        }
        return text
    }

    /// `megabytes` of the bench's lines: the line's number, then letters and digits from a place
    /// that moves with it, 239 characters and a newline (a pty turns it into CR LF).
    static func text(megabytes: Int) -> [UInt8] {
        let base = Array(String(repeating: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", count: 8).utf8)
        let count = megabytes * 1_000_000 / 240
        var text: [UInt8] = []
        text.reserveCapacity(count * 241)
        for i in 0..<count {
            text += Array(String(format: "%08d ", i).utf8)
            text += base[(i % 62)..<(i % 62 + 230)]
            text += [13, 10]
        }
        return text
    }
}
