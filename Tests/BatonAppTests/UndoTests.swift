import Foundation
import Testing
import TerminalUI
@testable import BatonApp

@Suite("Undo and redo")
struct UndoTests {
    @Test("A run of typing is one step; a pause in virtual time starts the next; the cursor goes back")
    func typingGroupedByPause() {
        var model = Fixtures.editor("say: ", cursor: TextPosition(line: 0, column: 5))
        model.type("hello")
        // A tick while typing goes on does not end the run.
        model.send(.tick(Fixtures.start.addingTimeInterval(1)))
        model.type(" world")
        #expect(model.wantsTicks)
        model.send(.tick(Fixtures.start.addingTimeInterval(2)), .tick(Fixtures.start.addingTimeInterval(3)))
        #expect(!model.wantsTicks)
        model.type("!")
        model.press(.control("z"))
        expectScreen(model, [
            " (unnamed) [+]                          ",
            "say: hello world                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 2 peers · online              ",
        ])
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "say: ")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 5))
        model.press(.control("z"))
        expectScreen(model, [
            " (unnamed) [+]                          ",
            "say:                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · nothing to undo · online      ",
        ])
        model.press(.control("y"), .control("y"))
        #expect(model.editorState.buffer.text == "say: hello world!")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 17))
        model.press(.control("y"))
        #expect(model.editorState.findResult == "nothing to redo")
    }

    @Test("A cursor move and a different kind of edit each start a new step; Alt-U (Esc, u) undoes")
    func groupingByMoveAndKind() {
        var model = Fixtures.editor()
        model.type("abc")
        model.press(.left)
        model.type("X")                       // after a move: a new step
        model.press(.end, .backspace, .backspace)  // another kind: a new step
        model.type("yz")
        #expect(model.editorState.buffer.text == "abyz")
        model.press(.escape, .character("u"))
        #expect(model.editorState.buffer.text == "ab")
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "abXc")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 4))
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "abc")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 2))
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "")
        // Esc followed by a key that is not a character is that key (a character after it is an
        // Alt-key: see unknownAltKeys).
        model.press(.escape, .enter)
        #expect(model.editorState.buffer.text == "\n")
    }

    @Test("An Alt-key the editor does not know (Esc and the key) types nothing and says so; Alt-U still undoes")
    func unknownAltKeys() {
        var model = Fixtures.editor("abc", cursor: TextPosition(line: 0, column: 3))
        for character in ["x", "é", "1"] as [Character] {
            #expect(model.press(.escape, .character(character)) == [], "Alt-\(character) asked for something")
            #expect(model.editorState.buffer.text == "abc", "Alt-\(character) was typed")
            #expect(model.notice?.text == "Alt-\(character) does nothing here; F1 lists the keys")
            // The same as one key, as the backend reads Esc and a character together.
            #expect(model.press(.alt(character)) == [], "Alt-\(character) asked for something")
            #expect(model.editorState.buffer.text == "abc", "Alt-\(character) was typed")
        }
        #expect(!model.editorState.isDirty)
        // The key after is typed as usual.
        model.type("d")
        #expect(model.editorState.buffer.text == "abcd")
        model.press(.escape, .character("u"))
        #expect(model.editorState.buffer.text == "abc")
    }

    @Test("Typing across lines with Enter is one step, and a new edit drops what could be redone")
    func typingAcrossLines() {
        var model = Fixtures.editor("top\nbottom", cursor: TextPosition(line: 0, column: 3))
        model.type("\nmiddle\nmore")
        #expect(model.editorState.buffer.text == "top\nmiddle\nmore\nbottom")
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "top\nbottom")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 3))
        model.type("!")
        model.press(.control("y"))
        #expect(model.editorState.buffer.text == "top!\nbottom")
        #expect(model.editorState.findResult == "nothing to redo")
    }

    @Test("Undo publishes the restored text and cursor")
    func undoPublishes() {
        var model = Fixtures.editor("a")
        model.type("b")
        #expect(model.press(.control("z")) == [.publish])
        #expect(model.session.userInfo["text"] == .string("a"))
        #expect(model.press(.control("z")) == [])
    }

    @Test("The history is bounded in steps")
    func bounded() {
        var history = EditHistory()
        for index in 0..<(EditHistory.maxSteps + 10) {
            history.record(
                EditStep(
                    line: 0, removed: [""], inserted: ["\(index)"], cursorBefore: .init(line: 0, column: 0),
                    cursorAfter: .init(line: 0, column: 1), kind: .paste),
                at: Fixtures.start)
        }
        #expect(history.undoSteps.count == EditHistory.maxSteps)
        #expect(history.undoSteps.first?.inserted == ["10"])
    }

    @Test("Seeded random edits against a String model: every state matches, undoing all gives back the start")
    func randomEditsUndoToStart() {
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<40 {
            let original = ["", "abc", "one\ntwo\nthree", "中文\n👋 é\n\n"][round % 4]
            var model = Fixtures.editor(original)
            let start = model.editorState.buffer.cursor
            var plain = PlainText(original)
            var firstEditCursor: TextPosition?
            for _ in 0..<60 {
                let key = randomKey(&generator)
                let before = model.editorState.buffer
                model.press(key)
                switch key {
                case .left, .right, .up, .down, .home, .end, .control("k"), .control("u"):
                    // Motion, cut and paste are checked elsewhere: follow the editor.
                    plain = PlainText(model.editorState.buffer.text, cursor: model.editorState.buffer.cursor)
                default:
                    plain.apply(key)
                }
                if firstEditCursor == nil, model.editorState.buffer.text != before.text {
                    firstEditCursor = before.cursor
                }
                if Int.random(in: 0..<8, using: &generator) == 0 {
                    model.send(.tick(model.now.addingTimeInterval(5)))
                    model.send(.tick(model.now.addingTimeInterval(5)))
                }
                #expect(model.editorState.buffer.text == plain.text, "round \(round)")
                #expect(model.editorState.buffer.cursor == plain.cursor, "round \(round)")
            }
            var undone = 0
            while !model.editorState.history.undoSteps.isEmpty {
                model.press(.control("z"))
                undone += 1
            }
            #expect(model.editorState.buffer.text == original, "round \(round) after \(undone) undos")
            #expect(model.editorState.buffer.cursor == (firstEditCursor ?? start), "round \(round)")
        }
    }

    private func randomKey(_ generator: inout SeededGenerator) -> Key {
        let keys: [Key] = [
            .character("a"), .character("中"), .character("👋"), .character(" "), .enter, .tab,
            .backspace, .delete, .left, .right, .up, .down, .home, .end, .control("k"), .control("u"),
        ]
        return keys[Int.random(in: 0..<keys.count, using: &generator)]
    }
}

/// A plain model of the editor: a String and a cursor, edited the simplest way.
struct PlainText {
    var lines: [[Character]]
    var line = 0
    var column = 0

    init(_ text: String, cursor: TextPosition = TextPosition(line: 0, column: 0)) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        line = cursor.line
        column = cursor.column
    }

    var cursor: TextPosition { TextPosition(line: line, column: column) }

    var text: String { lines.map { String($0) }.joined(separator: "\n") }

    mutating func apply(_ key: Key) {
        switch key {
        case .character(let character): insert(String(character))
        case .enter: insert("\n")
        case .tab: insert("\t")  // a tab character, drawn to the next stop
        case .backspace:
            if column > 0 {
                lines[line].remove(at: column - 1)
                column -= 1
            } else if line > 0 {
                let removed = lines.remove(at: line)
                line -= 1
                column = lines[line].count
                lines[line] += removed
            }
        case .delete:
            if column < lines[line].count {
                lines[line].remove(at: column)
            } else if line + 1 < lines.count {
                lines[line] += lines.remove(at: line + 1)
            }
        default:
            break
        }
    }

    mutating func insert(_ text: String) {
        let pieces = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        let tail = Array(lines[line][column...])
        lines[line].removeSubrange(column...)
        lines[line] += pieces[0]
        if pieces.count == 1 {
            column = lines[line].count
            lines[line] += tail
        } else {
            lines.insert(contentsOf: pieces[1...], at: line + 1)
            line += pieces.count - 1
            column = lines[line].count
            lines[line] += tail
        }
    }
}

/// SplitMix64: the same sequence for the same seed on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B4
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
