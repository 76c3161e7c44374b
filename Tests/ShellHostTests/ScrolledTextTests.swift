import BatonShell
import Handoff
import HandoffTesting
import NIOCore
@testable import ShellHost
import Testing

/// The plain text of a flood that scrolls off unseen is not parsed (`ScrolledText`); libvterm
/// itself is the judge that this changes nothing: one emulator parses every byte, another takes
/// the same reads in runs, and both must hold the same screen, then and after whatever comes next.
@Suite("Plain text that scrolls off unseen")
struct ScrolledTextTests {
    /// The run's bytes, `ScrolledText` scanned over them in reads of `size`.
    static func skippable(_ text: String, rows: Int, size: Int = 7) -> Int {
        let bytes = Array(text.utf8)
        var scrolled = ScrolledText(rows: rows)
        for start in stride(from: 0, to: bytes.count, by: size) {
            bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { scrolled.scan($0) }
        }
        return scrolled.skippable
    }

    @Test("It keeps the last 2 × rows + 1 lines, from just after a line feed, when a CR comes where the cursor is on the last row; never text after a byte that is not plain")
    func plan() {
        // 3 rows: 7 lines kept of 10, so the first 3 lines ("a\r\n" each) go.
        #expect(Self.skippable(String(repeating: "a\r\n", count: 10), rows: 3) == 9)
        #expect(Self.skippable(String(repeating: "a\r\n", count: 7), rows: 3) == 0)
        #expect(Self.skippable(String(repeating: "a\r\n", count: 8), rows: 3) == 3)
        // Line feeds alone never bring the cursor to a known column.
        #expect(Self.skippable(String(repeating: "a\n", count: 40), rows: 3) == 0)
        // One CR is enough if it falls in the three lines after the first rows - 1 kept (lines 6-8 of 10 here).
        for line in 1...10 {
            let text = (1...10).map { $0 == line ? "a\r\n" : "a\n" }.joined()
            #expect(Self.skippable(text, rows: 3) == ((6...8).contains(line) ? 6 : 0), "CR on line \(line)")
        }
        // A byte that is not plain ends what is looked at: only the lines before it count.
        let colour = String(repeating: "a\r\n", count: 10) + "\u{1b}[31m" + String(repeating: "b\r\n", count: 20)
        #expect(Self.skippable(colour, rows: 3) == 9)
        #expect(Self.skippable("é" + String(repeating: "a\r\n", count: 20), rows: 3) == 0)
        #expect(Self.skippable(String(repeating: "a\t\r\n", count: 10), rows: 3) == 12)
    }

    /// Output before a flood: anything a program writes, and what may leave libvterm inside an
    /// escape sequence, a string or a character when the flood begins.
    static func before(_ random: inout SplitMix64) -> [UInt8] {
        switch random.below(18) {
        case 16, 17: return Array("\u{1b}[?69l\u{1b}[r".utf8)  // the whole screen scrolls again
        case 0: return Array("\u{1b}]0;a title".utf8)
        case 1: return Array("\u{1b}P1$r".utf8)
        case 2: return Array(["\u{1b}[", "\u{1b}[3", "\u{1b}[?", "\u{1b}", "\u{1b}(", "\u{1b}[1;"][random.below(6)].utf8)
        case 3: return [[0xE2], [0xE2, 0x94], [0xF0, 0x9F], [0xC3], [0x9B], [0xC2, 0x9B], [0xC2, 0x9D]][random.below(7)]
        case 4: return Array(["\u{1b}[20h", "\u{1b}[20l", "\u{1b}(0", "\u{1b}(B", "\u{1b}H", "\u{1b}[3g", "\u{18}", "\u{1b}\\", "\u{7}"][random.below(9)].utf8)
        case 5: return Array("\u{1b}[\(1 + random.below(4));\(2 + random.below(30))r".utf8)
        default: return Array(EmulatorScreenTests.fragment(&random).utf8)
        }
    }

    /// Plain lines: up to twice the screen's width, tabs among them, ended by CR LF mostly, in
    /// some floods by LF alone, and in some by any of LF, CR and CR LF.
    static func flood(_ random: inout SplitMix64, rows: Int, columns: Int) -> [UInt8] {
        let endings: [[UInt8]] = switch random.below(6) {
        case 0: [[0x0A], [0x0D], [0x0D, 0x0A]]
        case 1: [[0x0A]]  // a program that turned the terminal's CR off: the column carries over
        default: [[0x0D, 0x0A]]
        }
        var bytes: [UInt8] = []
        for line in 0..<((random.below(2) == 0 ? 2 * rows : 0) + random.below(8 * rows + 2)) {
            for _ in 0..<random.below(2 * columns + 1) {
                bytes.append(random.below(20) == 0 ? 0x09 : UInt8(0x20 + random.below(95)))
            }
            if random.below(6) == 0 { bytes += Array("\(line)".utf8) }
            bytes += endings[random.below(endings.count)]
        }
        return bytes
    }

    @Test("Random output, then floods of plain lines in random reads: parsed whole on one emulator, taken in runs on the other, the screens are the same after each flood and after what comes next")
    func differential() async {
        var checked = 0, skippedFloods = 0
        for seed in 1...60 {
            var random = SplitMix64(seed: UInt64(seed))
            let rows = 1 + random.below(24), columns = 2 + random.below(70)
            let whole = TerminalEmulator(rows: rows, columns: columns)
            let runs = TerminalEmulator(rows: rows, columns: columns)
            var log: [String] = []
            for round in 0..<12 {
                await Task.yield()  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
                if random.below(12) == 0 {
                    let newRows = 1 + random.below(24), newColumns = 2 + random.below(70)
                    log.append("<resize \(newRows)x\(newColumns)>")
                    whole.resize(rows: newRows, columns: newColumns)
                    runs.resize(rows: newRows, columns: newColumns)
                }
                // Often nothing before: a flood that goes on from the last, with the emulator drawing plain text.
                let before = random.below(3) == 0 ? [] : (0..<(1 + random.below(3))).flatMap { _ in Self.before(&random) }
                whole.write(before)
                runs.write(before)
                let flood = Self.flood(&random, rows: whole.size.rows, columns: whole.size.columns)
                log.append(String(decoding: before, as: UTF8.self) + "<flood of \(flood.count) bytes>")
                // The flood in reads of 1 to 600 bytes, taken in one to four runs.
                var reads: [ByteBuffer] = []
                var start = 0
                while start < flood.count {
                    let end = min(flood.count, start + 1 + random.below(600))
                    reads.append(ByteBuffer(bytes: flood[start..<end]))
                    start = end
                }
                var skipped = 0
                var next = 0
                let runLength = 1 + reads.count / (1 + random.below(4))
                while next < reads.count {
                    let end = min(reads.count, next + 1 + random.below(runLength))
                    skipped += runs.write(run: Array(reads[next..<end]))
                    next = end
                }
                whole.write(flood)
                if skipped > 0 { skippedFloods += 1 }
                // The same screen now, and the same state: more output of any kind gives the same screens.
                for step in 0..<4 {
                    let screen = runs.screen, expected = whole.screen
                    guard screen == expected else {
                        let differing = zip(screen.rows, expected.rows).enumerated().first { $0.element.0 != $0.element.1 }
                        Issue.record("""
                            seed \(seed), round \(round), step \(step) (\(rows)x\(columns) at first, \(skipped) bytes skipped): the screens differ\
                            \(differing.map { " at row \($0.offset):\n  runs:  \($0.element.0.map(\.grapheme).joined())\n  whole: \($0.element.1.map(\.grapheme).joined())" } ?? "")
                              cursor runs \(screen.cursorRow),\(screen.cursorColumn), whole \(expected.cursorRow),\(expected.cursorColumn)
                              last output: \(log.suffix(3).map { String(reflecting: $0) }.joined(separator: " "))
                            """)
                        return
                    }
                    checked += 1
                    let more = EmulatorScreenTests.fragment(&random)
                    log.append(more)
                    whole.write(Array(more.utf8))
                    runs.write(Array(more.utf8))
                }
            }
        }
        #expect(checked == 60 * 12 * 4)
        // The floods left something out often enough for the comparison to mean something.
        #expect(skippedFloods >= 100, "\(skippedFloods) floods of 720 had text left out")
    }

    @MainActor
    @Test("A flood parsed on the parser's thread leaves most of a long run unparsed, with the screen of every byte parsed")
    func parserSkips() async {
        let (thread, reports, parser, inline) = OutputParserTests.held()
        // Lines that scroll the screen: the parser's emulator is then drawing plain text.
        let opening = ByteBuffer(bytes: Array(String(repeating: "opening line\r\n", count: 10).utf8))
        #expect(parser.take(opening) == .parsed(answers: []))
        inline.write(Array(opening.readableBytesView))
        var lines = 0
        for index in 0..<60 {
            var text = ""
            while text.utf8.count < 4000 {
                text += "line \(lines) of the flood \(index)\r\n"
                lines += 1
            }
            let read = ByteBuffer(bytes: Array(text.utf8))
            inline.write(Array(read.readableBytesView))
            #expect(parser.take(read) == .queued)
        }
        thread.resume()
        #expect(await waitUntil { reports.drains.load(ordering: .sequentiallyConsistent) == 1 })
        #expect(parser.changedScreen() == inline.screen)
        #expect(inline.screen.text.contains("line \(lines - 1) of the flood 59"))
        // All but the last 13 lines (6 rows) and what came before the run's first line feed.
        #expect(parser.skippedBytes > 50 * 4000, "\(parser.skippedBytes) bytes left out")
    }
}
