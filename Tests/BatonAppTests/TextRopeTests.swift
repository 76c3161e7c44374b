import Handoff
import Testing
@testable import BatonApp

/// `TextRope` with tiny blocks (a few lines or bytes each), so that edits cross blocks, cut
/// grown blocks and drop emptied lines all the time, against a `String` and its lines.
@Suite("TextRope's blocks against a String model")
struct TextRopeTests {
    static let alphabet: [String] = ["a", "é", "e\u{301}", "ж", "中", "👋", "👨‍👩‍👧‍👦", "\t", "\r", "\n", "\n", "\r\n"]

    static func lines(_ text: String) -> [String] {
        text.utf8.split(separator: 10, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// The UTF-8 offset of a position given as line and characters of that line.
    static func offset(_ position: TextPosition, in text: String) -> Int {
        let lines = lines(text)
        let line = lines[position.line]
        let start = lines[..<position.line].reduce(0) { $0 + $1.utf8.count + 1 }
        return start + line.utf8.distance(from: line.startIndex, to: line.index(line.startIndex, offsetBy: position.column))
    }

    /// Mostly ASCII, so that most lines are ASCII and most edits inside one take its path
    /// (`replaceInASCIILine`), with CR beside the edits and now and then a letter that is not.
    static let asciiAlphabet: [String] = ["a", "b", "c", " ", "a", "b", "\t", "\r", "\n", "é"]

    @Test("Random replaces agree with the model: text, lines, counts, what was removed", arguments: [(1, 1), (2, 8), (3, 1), (5, 40)] as [(Int, Int)])
    func randomReplaces(blockLines: Int, blockBytes: Int) {
        Self.checkRandomReplaces(blockLines: blockLines, blockBytes: blockBytes, alphabet: Self.alphabet)
    }

    @Test("Random replaces in mostly ASCII lines agree with the model", arguments: [(1, 1), (3, 8), (5, 40), (128, 8192)] as [(Int, Int)])
    func randomASCIIReplaces(blockLines: Int, blockBytes: Int) {
        Self.checkRandomReplaces(blockLines: blockLines, blockBytes: blockBytes, alphabet: Self.asciiAlphabet)
    }

    static func checkRandomReplaces(blockLines: Int, blockBytes: Int, alphabet: [String]) {
        var random = SplitMix64(seed: UInt64(blockLines * 100 + blockBytes + alphabet.count))
        var text = "first\nsecond 中\n\nthird\r\nfourth 👋"
        var rope = TextRope(text, blockLines: blockLines, blockBytes: blockBytes)
        func piece() -> String {
            (0..<Int.random(in: 0...8, using: &random)).map { _ in alphabet.randomElement(using: &random)! }.joined()
        }
        func somewhere() -> TextPosition {
            let lines = Self.lines(text)
            let line = Int.random(in: 0..<lines.count, using: &random)
            return TextPosition(line: line, column: Int.random(in: 0...lines[line].count, using: &random))
        }
        for step in 0..<800 {
            var (a, b) = (somewhere(), somewhere())
            if b < a { swap(&a, &b) }
            let new = piece()
            let (lower, upper) = (Self.offset(a, in: text), Self.offset(b, in: text))
            var bytes = Array(text.utf8)
            let expectedRemoved = String(decoding: bytes[lower..<upper], as: UTF8.self)
            bytes.replaceSubrange(lower..<upper, with: Array(new.utf8))
            text = String(decoding: bytes, as: UTF8.self)
            let (removed, end) = rope.replace(from: a, to: b, with: new)
            #expect(removed == expectedRemoved, "step \(step)")
            #expect(rope.string == text, "step \(step)")
            #expect(rope.utf8Count == text.utf8.count, "step \(step)")
            let lines = Self.lines(text)
            #expect(rope.lineCount == lines.count, "step \(step)")
            #expect(Self.offset(end, in: text) == lower + new.utf8.count, "step \(step)")
            guard rope.string == text, rope.lineCount == lines.count else { return }
            if step % 40 == 0 {
                for (index, line) in lines.enumerated() {
                    #expect(rope.line(index) == line, "step \(step) line \(index)")
                    #expect(rope.characterCount(ofLine: index) == line.count, "step \(step) line \(index)")
                }
            }
        }
        // Made afresh from the same text, it is equal.
        #expect(TextRope(text, blockLines: blockLines, blockBytes: blockBytes) == rope)
        #expect(TextRope(text) == rope)
        #expect(!(TextRope(text + "x") == rope))
    }

    @Test("Typing inside one line, as a user types: the line grows, lines around it stay, and a block grown past twice its size is cut again")
    func typingInsideOneLine() {
        let lines = (0..<40).map { "line \($0) ж" }
        var model = lines
        var rope = TextRope(lines.joined(separator: "\n"), blockLines: 8, blockBytes: 64)
        let blocksBefore = rope.blockCount
        var column = 0
        for step in 0..<300 {
            let letter = Self.alphabet[step % 7]  // no line breaks: a, é, e + accent, ж, 中, 👋, a family
            let (removed, end) = rope.replace(from: TextPosition(line: 17, column: column), to: TextPosition(line: 17, column: column), with: letter)
            var line = Array(model[17])
            line.insert(contentsOf: Array(letter), at: column)
            model[17] = String(line)
            column += Array(letter).count
            #expect(removed.isEmpty)
            #expect(end == TextPosition(line: 17, column: column), "step \(step)")
        }
        // Backspace, three times, before the cursor: whole characters go.
        for _ in 0..<3 {
            let (removed, end) = rope.replace(from: TextPosition(line: 17, column: column - 1), to: TextPosition(line: 17, column: column), with: "")
            var line = Array(model[17])
            #expect(removed == String(line[column - 1]))
            line.remove(at: column - 1)
            model[17] = String(line)
            column -= 1
            #expect(end == TextPosition(line: 17, column: column))
        }
        #expect(rope.string == model.joined(separator: "\n"))
        #expect(rope.lineCount == 40)
        #expect(rope.utf8Count == model.joined(separator: "\n").utf8.count)
        #expect(model.indices.allSatisfy { rope.line($0) == model[$0] && rope.characterCount(ofLine: $0) == model[$0].count })
        // The line's block grew far past 2 × 64 bytes: it was cut again into blocks of one line
        // or a few, rather than kept growing.
        #expect(rope.blockCount > blocksBefore)
        #expect(TextRope(model.joined(separator: "\n"), blockLines: 8, blockBytes: 64) == rope)
    }

    @Test("A file cut into blocks reads back whole, line by line, the ends of blocks included")
    func opensIntoBlocks() {
        let lines = (0..<1000).map { "line \($0) " + String(repeating: "ж", count: $0 % 7) + ($0 % 5 == 0 ? "\r" : "") }
        let text = lines.joined(separator: "\n")
        for (blockLines, blockBytes) in [(1, 1), (3, 64), (512, 32 * 1024), (10_000, 10)] {
            let rope = TextRope(text, blockLines: blockLines, blockBytes: blockBytes)
            #expect(rope.lineCount == 1000)
            #expect(rope.utf8Count == text.utf8.count)
            #expect(rope.string == text)
            #expect(lines.indices.allSatisfy { rope.line($0) == lines[$0] })
        }
        #expect(TextRope("").lineCount == 1)
        #expect(TextRope("\n").lineCount == 2)
        #expect(TextRope("\n", blockLines: 1, blockBytes: 1).string == "\n")
    }
}
