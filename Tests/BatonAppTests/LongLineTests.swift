import Handoff
import Testing
@testable import BatonApp

/// Long lines: columns found from checkpoints and an edit measured only around itself must
/// give exactly what walking and segmenting the whole line gives.
@Suite("Long lines against whole-line segmenting")
struct LongLineTests {
    /// Pieces that join their neighbours (marks, ZWJ, skin tones, regional indicators, which
    /// pair up along a run), and tabs, wide and control characters.
    static let pieces = [
        "a", "x", " ", "\t", "é", "e", "\u{301}", "\u{200D}", "👨", "👩", "👍", "🏽", "🇺", "🇸", "🇫", "中", "ж",
        "\r", "\u{7}", "क", "्", "ष",
    ]

    static func longLine(_ random: inout SplitMix64, bytes: Int) -> String {
        var line = ""
        while line.utf8.count < bytes { line += pieces.randomElement(using: &random)! }
        return line
    }

    /// The cursor's display column and the width under it, walking the whole line's characters.
    static func columns(_ buffer: TextBuffer) -> (start: Int, width: Int) {
        let line = buffer.line(buffer.cursor.line)
        let start = TextBuffer.displayWidth(line.prefix(buffer.cursor.column))
        guard buffer.cursor.column < line.count else { return (start, 1) }
        return (start, max(1, TextBuffer.advance(from: start, over: line[buffer.cursor.column]) - start))
    }

    @Test("Random edits and moves in long lines: text, cursor, counts and columns as whole lines give", arguments: [7, 29, 2026] as [UInt64])
    func randomEditsAgainstWholeLines(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        let text = ["short", Self.longLine(&random, bytes: 6000), "中文\tline", Self.longLine(&random, bytes: 900)].joined(separator: "\n")
        // Checkpoints every few characters on every line, the app's settings (the 6 KB line is
        // long), and none at all (every line short: the whole-line measuring of before).
        var buffers = [
            TextBuffer(text: text, longLineBytes: 0, checkpointSpacing: 3),
            TextBuffer(text: text),
            TextBuffer(text: text, longLineBytes: .max, checkpointSpacing: 512),
        ]
        buffers = buffers.map { var buffer = $0; buffer.move(to: TextPosition(line: 1, column: 5000)); return buffer }
        for step in 0..<600 {
            await Task.yield()  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
            let operation = Int.random(in: 0..<14, using: &random)
            let count = buffers[0].characterCount(ofLine: buffers[0].cursor.line)
            let target = TextPosition(
                line: Int.random(in: 0..<buffers[0].lineCount, using: &random), column: Int.random(in: 0...6000, using: &random))
            let piece = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            let span = Int.random(in: 0...4, using: &random)
            let column = buffers[0].cursor.column
            var removed: [String] = []
            for index in buffers.indices {
                switch operation {
                case 0, 1, 2: buffers[index].insert(piece)
                case 3: buffers[index].backspace()
                case 4: buffers[index].deleteForward()
                case 5: buffers[index].moveLeft()
                case 6: buffers[index].moveRight()
                case 7: buffers[index].moveUp()
                case 8: buffers[index].moveDown()
                case 9: step % 3 == 0 ? buffers[index].moveToLineStart() : buffers[index].moveToLineEnd()
                case 10: buffers[index].move(to: target)
                case 11:
                    let line = buffers[index].cursor.line
                    removed.append(buffers[index].replace(
                        from: TextPosition(line: line, column: column), to: TextPosition(line: line, column: min(count, column + span)),
                        with: piece))
                case 12: if step % 50 == 0 { buffers[index].insertNewline() }
                default: buffers[index].move(to: TextPosition(line: buffers[index].cursor.line, column: target.column))
                }
            }
            let expected = buffers[2]
            for buffer in buffers.dropLast() {
                #expect(buffer.text == expected.text, "seed \(seed) step \(step) operation \(operation)")
                #expect(buffer.cursor == expected.cursor, "seed \(seed) step \(step) operation \(operation)")
            }
            #expect(Set(removed).count <= 1, "seed \(seed) step \(step)")
            let line = expected.line(expected.cursor.line)
            let expectedColumns = Self.columns(expected)
            for buffer in buffers {
                #expect(buffer.characterCount(ofLine: buffer.cursor.line) == line.count, "seed \(seed) step \(step)")
                #expect(buffer.cursorColumns == expectedColumns, "seed \(seed) step \(step)")
            }
            guard buffers.allSatisfy({ $0.text == expected.text && $0.cursor == expected.cursor }) else { return }
            if step % 25 == 0 {
                // Where a view scrolled to any column starts: the character `column(in:atDisplayColumn:)` finds.
                let width = TextBuffer.displayWidth(line)
                for goal in [1, width / 3, width / 2, width - 1, width, width + 5] where goal > 0 {
                    let start = buffers[0].drawStart(ofLine: expected.cursor.line, left: goal)
                    #expect(start.character == TextBuffer.column(in: line, atDisplayColumn: goal), "seed \(seed) step \(step) goal \(goal)")
                    #expect(start.column == TextBuffer.displayWidth(line.prefix(start.character)), "seed \(seed) step \(step) goal \(goal)")
                    #expect(start.utf8 == String(line.prefix(start.character)).utf8.count, "seed \(seed) step \(step) goal \(goal)")
                }
            }
        }
        // The edits did keep a long line long, with joining pieces in it.
        #expect((0..<buffers[0].lineCount).contains { buffers[0].lineText($0).utf8.count > 4096 })
        #expect(buffers[0].text.unicodeScalars.contains("\u{200D}") && buffers[0].text.unicodeScalars.contains("🇸"))
    }

    @Test("Random edits and moves within one long line agree with the String model", arguments: [3, 11, 404] as [UInt64])
    func randomEditsAgainstModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let alphabet = TextBufferModelTests.alphabet.filter { $0 != "\n" }
        var long = ""
        while long.utf8.count < 1200 { long += alphabet.randomElement(using: &random)! }
        var model = TextBufferModelTests.Model(text: "top\n" + long + "\nend", offset: 4)
        var buffer = TextBuffer(text: model.text, cursor: TextPosition(line: 1, column: 0), longLineBytes: 100, checkpointSpacing: 16)
        for step in 0..<400 {
            let operation = Int.random(in: 0..<9, using: &random)
            switch operation {
            case 0, 1:
                let character = alphabet.randomElement(using: &random)!
                buffer.insert(character)
                _ = model.replace(model.position, model.position, with: character)
            case 2:
                buffer.backspace()
                model.backspace()
            case 3:
                buffer.deleteForward()
                model.deleteForward()
            case 4:
                buffer.moveLeft()
                model.left()
            case 5:
                buffer.moveRight()
                model.right()
            case 6:
                let delta = Bool.random(using: &random) ? 1 : -1
                delta < 0 ? buffer.moveUp() : buffer.moveDown()
                model.vertical(delta)
            default:
                let target = TextPosition(line: Int.random(in: 0...2, using: &random), column: Int.random(in: 0...2000, using: &random))
                buffer.move(to: target)
                model.offset = model.offset(of: target)
                model.goal = nil
            }
            #expect(buffer.text == model.text, "seed \(seed) step \(step) operation \(operation)")
            #expect(buffer.cursor == model.position, "seed \(seed) step \(step) operation \(operation)")
            #expect(buffer.lineCount == model.lines.count, "seed \(seed) step \(step)")
            guard buffer.text == model.text, buffer.cursor == model.position else { return }
            let here = model.position
            let line = model.lines[here.line]
            #expect(buffer.characterCount(ofLine: here.line) == line.count, "seed \(seed) step \(step)")
            #expect(buffer.cursorDisplayColumn == TextBuffer.displayWidth(Array(line).prefix(here.column)), "seed \(seed) step \(step)")
        }
        #expect((0..<buffer.lineCount).contains { buffer.lineText($0).utf8.count > 1000 })
    }
}
