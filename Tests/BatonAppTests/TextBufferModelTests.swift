import Handoff
import Testing
@testable import BatonApp

/// The rope-backed buffer against a plain model: a `String` and a cursor as a UTF-8 offset,
/// lines cut at `\n` bytes and each line segmented on its own.
@Suite("TextBuffer against a String model")
struct TextBufferModelTests {
    /// Characters that never join their neighbours, so the model can count without resegmenting:
    /// Latin (precomposed and decomposed é), Cyrillic, CJK, emoji (one with ZWJs), tab, CR, LF.
    static let alphabet: [String] = ["a", "Z", " ", "é", "e\u{301}", "ж", "中", "👋", "👨‍👩‍👧", "\t", "\r", "\n"]

    struct Model {
        var text: String
        /// UTF-8 offset of the cursor.
        var offset: Int
        var goal: Int?

        var lines: [String] { text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { String(Substring($0)) } }

        /// The cursor as line and column (characters of its line before it).
        var position: TextPosition {
            var start = 0
            for (index, line) in lines.enumerated() {
                let end = start + line.utf8.count
                if offset <= end {
                    let prefix = String(decoding: Array(line.utf8.prefix(offset - start)), as: UTF8.self)
                    return TextPosition(line: index, column: prefix.count)
                }
                start = end + 1
            }
            preconditionFailure("cursor outside the text")
        }

        func offset(of position: TextPosition) -> Int {
            let lines = lines
            let line = min(max(position.line, 0), lines.count - 1)
            let text = lines[line]
            let column = min(max(position.column, 0), text.count)
            let start = lines[..<line].reduce(0) { $0 + $1.utf8.count + 1 }
            return start + text.utf8.distance(from: text.startIndex, to: text.index(text.startIndex, offsetBy: column))
        }

        mutating func replace(_ a: TextPosition, _ b: TextPosition, with new: String) -> String {
            var (lower, upper) = (offset(of: a), offset(of: b))
            if lower > upper { swap(&lower, &upper) }
            var bytes = Array(text.utf8)
            let removed = String(decoding: bytes[lower..<upper], as: UTF8.self)
            bytes.replaceSubrange(lower..<upper, with: Array(new.utf8))
            text = String(decoding: bytes, as: UTF8.self)
            offset = lower + new.utf8.count
            goal = nil
            return removed
        }

        mutating func left() {
            goal = nil
            let here = position
            if here.column > 0 {
                offset = self.offset(of: TextPosition(line: here.line, column: here.column - 1))
            } else if here.line > 0 {
                offset -= 1
            }
        }

        mutating func right() {
            goal = nil
            let here = position
            if here.column < lines[here.line].count {
                offset = self.offset(of: TextPosition(line: here.line, column: here.column + 1))
            } else if here.line + 1 < lines.count {
                offset += 1
            }
        }

        mutating func backspace() {
            let end = offset
            left()
            if offset != end { _ = replace(position, positionOf(end), with: "") }
            goal = nil
        }

        mutating func deleteForward() {
            let start = offset
            right()
            let end = offset
            offset = start
            if end != start { _ = replace(positionOf(start), positionOf(end), with: "") }
            goal = nil
        }

        mutating func vertical(_ delta: Int) {
            let here = position
            let lines = lines
            let goal = self.goal ?? TextBuffer.displayWidth(Array(lines[here.line]).prefix(here.column))
            let target = min(max(here.line + delta, 0), lines.count - 1)
            if target == here.line {
                offset = self.offset(of: TextPosition(line: here.line, column: delta < 0 ? 0 : lines[here.line].count))
                self.goal = nil
                return
            }
            // The character whose start is at or before the goal column.
            var width = 0
            var column = 0
            for character in lines[target] {
                let next = TextBuffer.advance(from: width, over: character)
                if next > goal { break }
                width = next
                column += 1
            }
            offset = self.offset(of: TextPosition(line: target, column: column))
            self.goal = goal
        }

        func positionOf(_ utf8: Int) -> TextPosition {
            var copy = self
            copy.offset = utf8
            return copy.position
        }
    }

    @Test("Random edits and moves leave the same text and cursor as the model", arguments: [1, 2, 3, 23, 2026])
    func randomEdits(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var model = Model(text: "héllo\n中文\tx\r\n👋", offset: 0)
        var buffer = TextBuffer(text: model.text)
        func piece() -> String {
            (0..<Int.random(in: 0...6, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! }.joined()
        }
        func somewhere() -> TextPosition {
            TextPosition(line: Int.random(in: -1...(buffer.lineCount + 1), using: &random), column: Int.random(in: -1...12, using: &random))
        }
        for step in 0..<600 {
            let operation = Int.random(in: 0..<11, using: &random)
            var removed: String?
            var expectedRemoved: String?
            switch operation {
            case 0, 1:
                let text = piece()
                buffer.insert(text)
                // Inserting nothing changes nothing, not even the column vertical moves aim for.
                if !text.isEmpty { _ = model.replace(model.position, model.position, with: text) }
            case 2:
                let character = Character(Self.alphabet.randomElement(using: &random)!)
                buffer.insert(character)
                _ = model.replace(model.position, model.position, with: String(character))
            case 3:
                buffer.backspace()
                model.backspace()
            case 4:
                buffer.deleteForward()
                model.deleteForward()
            case 5:
                buffer.moveLeft()
                model.left()
            case 6:
                buffer.moveRight()
                model.right()
            case 7:
                let delta = Int.random(in: 1...3, using: &random)
                if Bool.random(using: &random) {
                    buffer.moveUp(by: delta)
                    model.vertical(-delta)
                } else {
                    buffer.moveDown(by: delta)
                    model.vertical(delta)
                }
            case 8:
                let target = somewhere()
                buffer.move(to: target)
                model.offset = model.offset(of: target)
                model.goal = nil
            default:
                let (a, b, text) = (somewhere(), somewhere(), piece())
                removed = buffer.replace(from: a, to: b, with: text)
                expectedRemoved = model.replace(a, b, with: text)
            }
            #expect(buffer.text == model.text, "seed \(seed) step \(step) operation \(operation)")
            #expect(buffer.cursor == model.position, "seed \(seed) step \(step) operation \(operation)")
            #expect(removed == expectedRemoved, "seed \(seed) step \(step)")
            #expect(buffer.lineCount == model.lines.count, "seed \(seed) step \(step)")
            guard buffer.text == model.text, buffer.cursor == model.position else { return }
        }
        let lines = model.lines
        for index in lines.indices { #expect(buffer.line(index) == Array(lines[index])) }
        // A fresh buffer of the same text agrees with the edited one.
        #expect(TextBuffer(text: model.text, cursor: buffer.cursor) == buffer)
    }

    @Test("Replace across lines returns what it removed and leaves the cursor after the new text")
    func replaceAcrossLines() {
        var buffer = TextBuffer(text: "one\ntwo 👋\nthree\nfour")
        let removed = buffer.replace(from: TextPosition(line: 1, column: 4), to: TextPosition(line: 2, column: 2), with: "中\nж")
        #expect(removed == "👋\nth")
        #expect(buffer.text == "one\ntwo 中\nжree\nfour")
        #expect(buffer.cursor == TextPosition(line: 2, column: 1))
        // Reversed and out-of-range ends are ordered and clamped.
        let all = buffer.replace(from: TextPosition(line: 9, column: 9), to: TextPosition(line: -1, column: -1), with: "")
        #expect(all == "one\ntwo 中\nжree\nfour")
        #expect(buffer.isEmpty)
        #expect(buffer.lineCount == 1)
        #expect(buffer.cursor == TextPosition(line: 0, column: 0))
    }

    @Test("Edits far into a large text keep the line index right, across many index blocks")
    func largeText() {
        let line = "Привет, 世界 👋\tline"
        var buffer = TextBuffer(text: Array(repeating: line, count: 5000).joined(separator: "\n"))
        #expect(buffer.lineCount == 5000)
        buffer.move(to: TextPosition(line: 3000, column: 3))
        buffer.insert("x\ny")
        #expect(buffer.lineCount == 5001)
        #expect(buffer.line(3000) == Array("Приx"))
        #expect(buffer.line(3001) == Array("yвет, 世界 👋\tline"))
        // Remove 1,200 lines at once (more than a block of the index) and check the lines around.
        let removed = buffer.replace(from: TextPosition(line: 100, column: 0), to: TextPosition(line: 1300, column: 0), with: "")
        #expect(removed.utf8.count == 1200 * (line.utf8.count + 1))
        #expect(buffer.lineCount == 3801)
        #expect(buffer.line(1800) == Array("Приx"))
        #expect(buffer.cursor == TextPosition(line: 100, column: 0))
        buffer.moveDown(by: .max)
        #expect(buffer.cursor == TextPosition(line: 3800, column: 0))  // the display column it had
        #expect(buffer.text == Array(repeating: line, count: 3800).joined(separator: "\n").replacingFirstLine(1800, line, with: "Приx\nyвет, 世界 👋\tline"))
    }
}

private extension String {
    /// This text of `\n`-separated lines with line `index` (which reads `old`) replaced by `new`.
    func replacingFirstLine(_ index: Int, _ old: String, with new: String) -> String {
        var lines = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        precondition(lines[index] == old)
        lines[index] = new
        return lines.joined(separator: "\n")
    }
}
