// libFuzzer target: the shell keeper's terminal emulator (Sources/ShellHost: `TerminalEmulator`
// over libvterm, with `SequenceGuard` and `ScrolledText`), fed what a program writes to its terminal.
//
// Bytes 0 and 1 are the screen's first size: 1 + byte 0 % 40 rows, 1 + byte 1 % 120 columns.
// The rest is a script of steps, each an opcode (its value modulo 8) and its operands:
//
//   0-3  output: a length byte n, then the n bytes the program wrote, as one read.
//   4    a flood of plain text: a count byte c and 8 pattern bytes; each pattern byte is one of
//        "x", "yz ", a tab, a CR, a LF, CR LF, "12345678" and 80 "w"s (its value modulo 8),
//        and the pattern is written c + 1 times, in reads of up to 256 bytes.
//   5    a resize: two bytes, 1 + the first % 40 rows and 1 + the second % 120 columns.
//   6    a run ends (below).
//   7    output of the dense alphabet: a length byte n, then n bytes, each picking (modulo its
//        size) an escape, control, UTF-8 lead or C1 byte: what put libvterm 0.1.4's cursor off
//        the screen before the keeper filtered it.
//
// Two emulators take the same output. `whole` writes each read as it comes, as the keeper does
// with a read of a few bytes. `runs` queues them and takes them as one run at step 6, before a
// resize and at the end, leaving unparsed the plain text that scrolls off unseen
// (`skippable(scanning:)`), as the keeper's parser thread does with a flood.
//
// Checked besides "no trap": after every write, libvterm's own cursor is on the screen (libvterm
// 0.1.4 wrote outside its memory from a cursor off it), and the screen has the size it was
// given; after every run, both emulators show the same screen, with the cursor in the same place.
// libvterm itself is not instrumented: memory it writes wrongly is seen only through these checks
// and AddressSanitizer's checks of what Baton's code reads.

private let plainPieces: [[UInt8]] = [
    Array("x".utf8), Array("yz ".utf8), [0x09], [0x0D], [0x0A], [0x0D, 0x0A], Array("12345678".utf8),
    Array(repeating: UInt8(ascii: "w"), count: 80),
]

/// Escapes, controls, UTF-8 leads and continuations, and C1 bytes, densely.
private let dense: [UInt8] = [
    0x1B, 0x1B, 0x5B, 0x5B, 0x3F, 0x3B, 0x30, 0x31, 0x32, 0x35, 0x36, 0x39, 0x48, 0x4A, 0x4B, 0x6D, 0x72, 0x68, 0x6C,
    0x37, 0x38, 0x44, 0x45, 0x4D, 0x5D, 0x50, 0x5C, 0x07, 0x08, 0x09, 0x0A, 0x0D, 0x18, 0x20, 0x61,
    0xC2, 0xC2, 0xC3, 0xE2, 0xF0, 0x80, 0x85, 0x8D, 0x90, 0x9B, 0x9C, 0x9D, 0x9F, 0xA0, 0xBF, 0xFF,
]

private struct Script {
    let bytes: UnsafeRawBufferPointer
    var at = 0
    var done: Bool { at >= bytes.count }
    /// The next byte; 0 past the end.
    mutating func next() -> Int {
        guard at < bytes.count else { return 0 }
        defer { at += 1 }
        return Int(bytes[at])
    }
    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, at + count)
        defer { at = end }
        return Array(bytes[at..<end])
    }
}

private final class Pair {
    let whole: TerminalEmulator
    let runs: TerminalEmulator
    var rows: Int
    var columns: Int
    var queued: [[UInt8]] = []

    init(rows: Int, columns: Int) {
        (self.rows, self.columns) = (rows, columns)
        whole = TerminalEmulator(rows: rows, columns: columns)
        runs = TerminalEmulator(rows: rows, columns: columns)
    }

    func output(_ read: [UInt8]) {
        whole.write(read)
        checkCursor(whole, after: "a read of \(read.count) bytes")
        queued.append(read)
    }

    /// The queued reads into `runs`, as one run; then both screens must be the same.
    func endRun() {
        let reads = queued
        queued = []
        var skip = runs.skippable { text in
            for read in reads {
                read.withUnsafeBytes { text.scan($0) }
                if text.plainEnd != nil { break }
            }
        }
        let skipped = skip
        for read in reads {
            skip = read.withUnsafeBytes { runs.write($0, skipping: skip) }
            checkCursor(runs, after: "a read of a run")
        }
        let expected = whole.screen, screen = runs.screen
        if screen != expected {
            let row = zip(screen.rows, expected.rows).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            fatalError("""
                the screens differ after a run of \(reads.count) reads (\(skipped) bytes left unparsed) on \(rows)x\(columns): \
                first at row \(row.map(String.init) ?? "none"); cursor runs \(screen.cursorRow),\(screen.cursorColumn), \
                whole \(expected.cursorRow),\(expected.cursorColumn)
                """)
        }
    }

    func resize(rows: Int, columns: Int) {
        endRun()
        (self.rows, self.columns) = (rows, columns)
        for emulator in [whole, runs] {
            emulator.resize(rows: rows, columns: columns)
            checkCursor(emulator, after: "a resize")
        }
    }

    func checkCursor(_ emulator: TerminalEmulator, after what: String) {
        let state = emulator.stateCursor
        guard (0..<rows).contains(state.row), (0..<columns).contains(state.column) else {
            fatalError("libvterm's cursor is at \(state.row),\(state.column), off the \(rows)x\(columns) screen, after \(what)")
        }
        let size = emulator.size
        guard size.rows == rows, size.columns == columns else {
            fatalError("the emulator is \(size.rows)x\(size.columns), not \(rows)x\(columns), after \(what)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func screenFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 2 else { return 0 }
    var script = Script(bytes: UnsafeRawBufferPointer(start: data, count: size))
    let rows = 1 + script.next() % 40, columns = 1 + script.next() % 120
    let pair = Pair(rows: rows, columns: columns)
    // Bounded work per input: libFuzzer's inputs are a few KB, and a flood is at most 160 KB.
    while !script.done {
        switch script.next() % 8 {
        case 0...3:
            pair.output(script.take(script.next()))
        case 4:
            let count = 1 + script.next()
            let pattern = script.take(8).flatMap { plainPieces[Int($0) % plainPieces.count] }
            guard !pattern.isEmpty else { break }
            let flood = (0..<count).flatMap { _ in pattern }
            var start = 0
            while start < flood.count {
                let end = min(flood.count, start + 256)
                pair.output(Array(flood[start..<end]))
                start = end
            }
        case 5:
            pair.resize(rows: 1 + script.next() % 40, columns: 1 + script.next() % 120)
        case 6:
            pair.endRun()
        default:
            pair.output(script.take(script.next()).map { dense[Int($0) % dense.count] })
        }
    }
    pair.endRun()
    return 0
}
