import BatonShell
import Foundation
import HandoffWire
import ShellHost

/// `handoff-bench shell-path [rounds]`: the pieces of a shell session's key and its echo, each
/// timed alone (median µs a call): the key's message written and read, libvterm taking the echo
/// and the screen read, the update made, written, read and applied, and the frames sealed and
/// opened. An 80 × 24 screen with a prompt and a line being typed, as `bench/shell_bench.py` types.
enum ShellPathBench {
    static func run(rounds: Int) throws {
        var sink = 0
        let key = ShellMessage.input(.text("x", modifiers: []))
        let keyBytes = key.bytes
        let emulator = TerminalEmulator(rows: 24, columns: 80)
        emulator.write(Array("READY\r\n$ typed so far".utf8))
        var old = emulator.screen
        emulator.write([UInt8(ascii: "x")])
        var new = emulator.screen
        let update = ShellScreenUpdate(from: old, to: new, revision: 2)
        let screenMessage = ShellMessage.screen(update)
        let screenBytes = screenMessage.bytes
        let shown = ShellMessage.shown(revision: 2)
        var sealer = StreamFrameSealer(key: Array(repeating: 7, count: 32))
        let sealedKey = sealer.seal(keyBytes)
        print("shell path: one key typed into an 80×24 screen; key message \(keyBytes.count) B, screen update \(screenBytes.count) B")
        func line(_ name: String, _ iterations: Int, _ body: () -> Void) {
            let padded = name.padding(toLength: 48, withPad: " ", startingAt: 0)
            print("  \(padded) " + String(format: "%8.2f µs", HandoffBench.measure(iterations: iterations, rounds: rounds, body)))
        }
        line("key message written (ShellMessage.bytes)", 20_000) { sink &+= key.bytes.count }
        line("key message read (ShellMessage(bytes:))", 20_000) { if case .input = try? ShellMessage(bytes: keyBytes) { sink &+= 1 } }
        line("shown written", 20_000) { sink &+= shown.bytes.count }
        line("frame sealed, 100 B", 20_000) { sink &+= sealer.seal(keyBytes).count }
        line("frame sealed, \(screenBytes.count) B", 20_000) { sink &+= sealer.seal(screenBytes).count }
        line("frame opened, 100 B (deframer)", 20_000) {
            var deframer = StreamDeframer(key: Array(repeating: 7, count: 32))
            deframer.append(sealedKey)
            if let opened = try? deframer.next() { sink &+= opened.count }
        }
        line("libvterm takes the echo (write 1 B)", 20_000) { emulator.write([UInt8(ascii: "y")]) }
        line("screen read after a 1 B echo", 5_000) {
            emulator.write([UInt8(ascii: "z")])
            old = new
            new = emulator.screen
            sink &+= new.cursorColumn
        }
        line("update made (ShellScreenUpdate(from:to:))", 20_000) { sink &+= ShellScreenUpdate(from: old, to: new, revision: 3).lines.count }
        line("screen message written", 20_000) { sink &+= screenMessage.bytes.count }
        line("screen message read", 20_000) { if case .screen(let u) = try? ShellMessage(bytes: screenBytes) { sink &+= u.lines.count } }
        line("update applied", 20_000) { sink &+= ((try? update.applied(to: old))?.cursorColumn ?? 0) }
        print("  (\(sink & 1))")
    }
}
