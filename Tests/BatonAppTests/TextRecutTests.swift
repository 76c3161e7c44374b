import Testing
@testable import BatonApp

/// A buffer's blocks cut again from its joined text (`TextBuffer.recutFromText`), so that it holds
/// one copy of a large text and not the file's beside the join.
@Suite("Blocks cut again from the joined text")
struct TextRecutTests {
    /// Where a string's bytes are.
    static func storage(_ string: String) -> UnsafeRawPointer? {
        var string = string
        return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    /// An edited buffer of mixed-script lines, with `\r\n` and a long line among them, whose
    /// text is joined; and that text.
    static func editedAndJoined() -> (TextBuffer, String) {
        let lines = (0..<400).map { i in
            i == 200 ? String(repeating: "long ", count: 2_000) : "line \(i) Привет 👋 中\(i % 3 == 0 ? "\r" : "")"
        }
        var buffer = TextBuffer(text: lines.joined(separator: "\n"), longLineBytes: 4096, checkpointSpacing: 64)
        buffer.move(to: TextPosition(line: 3, column: 2))
        buffer.insert("typed")
        buffer.move(to: TextPosition(line: 200, column: 5_000))
        buffer.insert("inside the long line")
        buffer.move(to: TextPosition(line: 399, column: 0))
        buffer.insert("x\ny\n")
        return (buffer, buffer.text)
    }

    @Test("Recut: the same text, lines, version and cursor, each block a slice of the join")
    func recutKeepsEverything() throws {
        let (buffer, joined) = Self.editedAndJoined()
        let cut = try #require(buffer.recutFromText())
        #expect(cut.version == buffer.version)
        #expect(cut.cursor == buffer.cursor)
        #expect(cut.rope.string == joined)
        #expect(cut.lineCount == buffer.lineCount)
        for line in 0..<buffer.lineCount {
            #expect(cut.line(line) == buffer.line(line), "line \(line)")
            #expect(cut.rope.characterCount(ofLine: line) == buffer.rope.characterCount(ofLine: line), "line \(line)")
        }
        let join = Self.storage(joined)
        let slices = cut.rope.blocks.filter { Self.storage($0.text.base) == join }.count
        #expect(slices == cut.rope.blocks.count, "\(slices) of \(cut.rope.blocks.count) blocks are slices of the join")
        #expect(!cut.rope.sharesArrays(with: buffer.rope))
    }

    @Test("A recut buffer edits as the buffer it came from does")
    func recutEditsAlike() throws {
        var (buffer, _) = Self.editedAndJoined()
        var cut = try #require(buffer.recutFromText())
        for edit in 0..<60 {
            let position = TextPosition(line: (edit * 37) % buffer.lineCount, column: edit % 4)
            for b in [0, 1] {
                var target = b == 0 ? buffer : cut
                target.move(to: position)
                if edit % 5 == 4 { _ = target.backspace() } else { target.insert(edit % 7 == 0 ? "\n" as String : "é") }
                if b == 0 { buffer = target } else { cut = target }
            }
            #expect(cut.text == buffer.text, "edit \(edit)")
        }
    }

    @Test("Not joined: no recut; another version: its blocks are not taken")
    func recutNeedsTheJoin() throws {
        var (buffer, _) = Self.editedAndJoined()
        let cut = try #require(buffer.recutFromText())
        buffer.insert("more")
        #expect(buffer.recutFromText() == nil, "recut without the text joined for this version")
        var edited = buffer
        let taken = edited.takeBlocks(of: cut)
        #expect(!taken)
        #expect(edited.text == buffer.text)
        var same = cut
        same.move(to: TextPosition(line: 10, column: 1))
        let sameTaken = same.takeBlocks(of: cut)
        #expect(sameTaken)
        #expect(same.cursor == TextPosition(line: 10, column: 1), "the cursor stays")
        #expect(same.version == cut.version)
    }

    @Test("A long line that is a block and a string of its own stays so; the other blocks become slices of the join")
    func longLineKeepsItsString() {
        let long = String(repeating: "long ", count: 2_000)
        var rope = TextRope(["short", long, "short again"].joined(separator: "\n"), blockLines: 1, longLineBytes: 4096)
        _ = rope.replace(from: TextPosition(line: 1, column: 5_000), to: TextPosition(line: 1, column: 5_000), with: "typed")
        let before = rope.blocks.map { Self.storage($0.text.base) }
        let joined = rope.string
        let cut = rope.recut(from: joined)
        #expect(cut.string == joined)
        #expect(cut.blocks.count == 3)
        #expect(Self.storage(cut.blocks[1].text.base) == before[1], "the long line's own string was replaced by a slice")
        #expect(Self.storage(cut.blocks[0].text.base) == Self.storage(joined))
        #expect(Self.storage(cut.blocks[2].text.base) == Self.storage(joined))
    }
}
