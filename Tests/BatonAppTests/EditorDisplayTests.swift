import Testing
import TerminalUI
@testable import BatonApp

/// Issue 38: line numbers (Alt-N), soft wrap (Alt-S) and the cursor's position (Alt-C), kept for
/// the next session.
@Suite("Line numbers, soft wrap and the cursor's position")
struct EditorDisplayTests {
    @Test("Alt-N puts each line's number in a gutter, the text and the cursor after it; Alt-N again takes it away")
    func lineNumbers() {
        var model = Fixtures.editor("first\nsecond", cursor: TextPosition(line: 1, column: 3), width: 20, height: 6)
        #expect(model.press(.alt("n")).contains(.keepDisplay(EditorDisplay(lineNumbers: true))))
        #expect(model.editorState.findResult == "line numbers on")
        let view = BatonApp.view(model)
        let lines = view.frame.lines()
        #expect(lines[1].hasPrefix("1 first"))
        #expect(lines[2].hasPrefix("2 second"))
        #expect(view.frame[x: 0, y: 1].style.dim)
        #expect(view.cursor == CursorPosition(x: 5, y: 2))
        model.press(.escape, .character("N"))
        #expect(BatonApp.view(model).frame.lines()[1].hasPrefix("first"))
        #expect(BatonApp.view(model).cursor == CursorPosition(x: 3, y: 2))
    }

    @Test("Alt-S wraps a long line at the window's edge; the cursor at its end is on its last row, and the next line follows")
    func softWrap() {
        let long = String(repeating: "abcdefghij", count: 4)  // 40 columns in a 16-column window
        var model = Fixtures.editor(long + "\nnext", cursor: TextPosition(line: 0, column: 40), width: 16, height: 8)
        #expect(model.press(.alt("s")).contains(.keepDisplay(EditorDisplay(softWrap: true))))
        let view = BatonApp.view(model)
        let lines = view.frame.lines()
        #expect(lines[1] == "abcdefghijabcdef")
        #expect(lines[2] == "ghijabcdefghijab")
        #expect(lines[3].hasPrefix("cdefghij"))
        #expect(lines[4].hasPrefix("next"))
        #expect(view.cursor == CursorPosition(x: 8, y: 3))
        // With line numbers too: 14 columns of text after "1 ".
        model.press(.alt("n"))
        let numbered = BatonApp.view(model).frame.lines()
        #expect(numbered[1] == "1 abcdefghijabcd")
        #expect(numbered[2] == "  efghijabcdefgh")
        #expect(numbered[4].hasPrefix("2 next"))
    }

    @Test("With soft wrap, the cursor stays on screen wherever it goes in wrapped text (seeded moves)")
    func wrappedCursorAlwaysShows() {
        var generator = SeededGenerator(seed: 38)
        var lines: [String] = []
        for _ in 0..<60 {
            let length = Int(generator.next() % 90)
            lines.append(String((0..<length).map { _ in "ab 中x\t"[Int(generator.next() % 6)] }))
        }
        var model = Fixtures.editor(lines.joined(separator: "\n"), width: 17, height: 9)
        model.press(.alt("s"))
        let keys: [Key] = [.down, .up, .right, .left, .end, .home, .pageDown, .pageUp, .modified(.end, .control)]
        for step in 0..<600 {
            model.press(keys[Int(generator.next() % UInt64(keys.count))])
            let view = BatonApp.view(model)
            guard let cursor = view.cursor else {
                Issue.record("step \(step): no cursor at \(model.editorState.buffer.cursor)")
                return
            }
            #expect(cursor.y >= 1 && cursor.y < 7 && cursor.x >= 0 && cursor.x < 17, "step \(step): \(cursor)")
        }
    }

    @Test("The title shows no position at first, as nano; Alt-C shows the cursor's line and column there as it moves (and keeps the choice); Alt-C again hides it")
    func constantShow() {
        var model = Fixtures.editor("first\nsecond", cursor: TextPosition(line: 1, column: 3), fileName: "notes.txt", width: 30, height: 6)
        #expect(BatonApp.view(model).frame.lines()[0] == " notes.txt                    ")
        #expect(model.press(.alt("c")).contains(.keepDisplay(EditorDisplay(constantShow: true))))
        #expect(model.editorState.findResult == "cursor position shown")
        #expect(BatonApp.view(model).frame.lines()[0] == " notes.txt        Ln 2, Col 4 ")
        #expect(BatonApp.view(model).frame[x: 20, y: 0].style.reverse)
        model.press(.up)
        model.type("ab")
        #expect(BatonApp.view(model).frame.lines()[0] == " notes.txt [+]    Ln 1, Col 6 ")
        #expect(model.press(.alt("C")).contains(.keepDisplay(EditorDisplay())))
        #expect(model.editorState.findResult == "cursor position hidden")
        #expect(BatonApp.view(model).frame.lines()[0] == " notes.txt [+]                ")
    }

    @Test("A path too long for the title keeps its end, where the file name is; with the position shown it keeps less")
    func longPathInTitle() {
        var model = Fixtures.editor(
            "text", filePath: "/home/alice/projects/baton/docs/notes.txt", fileName: "notes.txt", isDirty: true, width: 30,
            height: 6)
        #expect(BatonApp.view(model).frame.lines()[0] == " …s/baton/docs/notes.txt [+]  ")
        model.press(.alt("c"))
        #expect(BatonApp.view(model).frame.lines()[0] == " …/notes.txt [+]  Ln 1, Col 1 ")
    }

    @Test("The toggles kept from before apply to a session opened here, not to one continued from another machine")
    func preferenceApplies() {
        var local = Fixtures.editor("text")
        local.send(.displayPreference(EditorDisplay(lineNumbers: true, softWrap: true)))
        #expect(local.editorState.display == EditorDisplay(lineNumbers: true, softWrap: true))
        var continued = Fixtures.editor("text", continuedFrom: "bob@desk")
        continued.send(.displayPreference(EditorDisplay(lineNumbers: true)))
        #expect(continued.editorState.display == EditorDisplay())
    }
}

extension EditorDisplayTests {
    @Test("Alt-M asks for the mouse (and keeps the choice); a press puts the cursor there, past the gutter; the wheel moves three lines")
    func mouse() {
        var model = Fixtures.editor("first line\nsecond\nthird\n4\n5\n6\n7", width: 30, height: 12)
        let commands = model.press(.alt("m"))
        #expect(commands.contains(.mouseReporting(true)))
        #expect(commands.contains(.keepDisplay(EditorDisplay(mouse: true))))
        #expect(model.editorState.findResult == "mouse on")
        // Row 2 of the screen is line 2 (the title is row 0); column 3 is after "sec".
        model.send(.mouse(Mouse(.press, x: 3, y: 2)))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 3))
        // Past a line's end: at its end; with line numbers, the gutter ("1 ") comes first.
        model.press(.alt("n"))
        model.send(.mouse(Mouse(.press, x: 25, y: 1)))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 10))
        model.send(.mouse(Mouse(.press, x: 3, y: 3)))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 1))
        // Below the text: its end. The title and the status rows are not the text.
        model.send(.mouse(Mouse(.press, x: 0, y: 0)))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 1))
        model.send(.mouse(Mouse(.press, x: 5, y: 8)))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 6, column: 1))
        model.send(.mouse(Mouse(.wheelUp, x: 5, y: 5)))
        #expect(model.editorState.buffer.cursor.line == 3)
        model.send(.mouse(Mouse(.wheelDown, x: 5, y: 5)))
        #expect(model.editorState.buffer.cursor.line == 6)
        // With the nearby list open, a press does nothing to the text.
        model.press(.control("n"))
        model.send(.mouse(Mouse(.press, x: 3, y: 2)))
        #expect(model.editorState.buffer.cursor.line == 6)
        #expect(model.press(.escape, .alt("m")).contains(.mouseReporting(false)))
    }

    @Test("Continuing another session from the nearby list keeps this person's mouse, which the terminal still reports")
    func mouseStaysOnContinue() {
        var model = Fixtures.editor("here")
        #expect(model.press(.alt("m")).contains(.mouseReporting(true)))
        let theirs = Fixtures.editor("there", continuedFrom: "bob@desk").session
        model.send(.continued(theirs, from: "bob@desk"))
        #expect(model.editorState.buffer.text == "there")
        #expect(model.editorState.display.mouse, "the terminal still reports the mouse")
        #expect(model.press(.escape, .alt("m")).contains(.mouseReporting(false)), "Alt-M turns it off, not on again")
        // A counter continued instead: the terminal stops reporting the mouse.
        model.press(.escape, .alt("m"))
        #expect(model.send(.continued(.counter(CounterState(count: 3)), from: "bob@desk")).contains(.mouseReporting(false)))
    }

    @Test("A kept choice of the mouse asks for it at the start, also for a continued session")
    func mousePreference() {
        var continued = Fixtures.editor("text", continuedFrom: "bob@desk")
        #expect(continued.send(.displayPreference(EditorDisplay(lineNumbers: true, mouse: true))).contains(.mouseReporting(true)))
        #expect(continued.editorState.display == EditorDisplay(mouse: true))
    }
}

private extension String {
    subscript(index: Int) -> Character { self[self.index(startIndex, offsetBy: index)] }
}
