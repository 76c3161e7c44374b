import Testing
import TerminalUI
@testable import BatonApp

@Suite("Editor editing and cursor motion")
struct EditorEditingTests {
    @Test("Typing 你好，wörld 👋 gives the text, cursor column 10 in Characters and display column 14")
    func typingWideText() {
        var model = Fixtures.editor()
        let commands = model.type("你好，wörld 👋")
        let buffer = model.editorState.buffer
        #expect(buffer.text == "你好，wörld 👋")
        #expect(buffer.cursor == TextPosition(line: 0, column: 10))
        #expect(buffer.cursorDisplayColumn == 14)
        #expect(commands == Array(repeating: .publish, count: 10))
        #expect(model.editorState.isDirty)
        #expect(model.session.userInfo["cursorColumn"] == .integer(10))
    }

    @Test("Left and Right step over whole wide characters, emoji and é")
    func horizontalMotion() {
        var model = Fixtures.editor("你好，wörld 👋", cursor: TextPosition(line: 0, column: 10))
        model.press(.left)
        #expect(model.editorState.buffer.cursor.column == 9)
        #expect(model.editorState.buffer.cursorDisplayColumn == 12)
        model.press(.home)
        #expect(model.editorState.buffer.cursorDisplayColumn == 0)
        model.press(.right, .right)
        #expect(model.editorState.buffer.cursorDisplayColumn == 4)
        model.press(.end)
        #expect(model.editorState.buffer.cursor.column == 10)
        #expect(model.editorState.isDirty == false)
    }

    @Test("Up and Down keep the display column across lines of wide characters")
    func verticalMotion() {
        var model = Fixtures.editor("abcdef\n中文字\nxy", cursor: TextPosition(line: 0, column: 3))
        model.press(.down)
        // Display column 3 falls inside 文 (columns 2–3): the cursor goes to its start.
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 1))
        model.press(.up)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 3))
        model.press(.down, .down)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 2))
        model.press(.down)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 2))
        model.press(.up, .up, .up)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 0))
    }

    @Test("Enter splits, Backspace and Delete join lines and remove whole characters")
    func enterBackspaceDelete() {
        var model = Fixtures.editor("ab👋cd", cursor: TextPosition(line: 0, column: 3))
        model.press(.enter)
        #expect(model.editorState.buffer.text == "ab👋\ncd")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 0))
        model.press(.backspace)
        #expect(model.editorState.buffer.text == "ab👋cd")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 3))
        model.press(.backspace)
        #expect(model.editorState.buffer.text == "abcd")
        model.press(.delete)
        #expect(model.editorState.buffer.text == "abd")
        model.press(.end, .delete)
        #expect(model.editorState.buffer.text == "abd")
    }

    @Test("Every edit and every cursor move publishes; keys that change nothing do not")
    func publishing() {
        var model = Fixtures.editor("ab")
        #expect(model.press(.right) == [.publish])
        #expect(model.press(.home) == [.publish])
        #expect(model.press(.home) == [])
        #expect(model.press(.left) == [])
        #expect(model.press(.backspace) == [])
        #expect(model.editorState.isDirty == false)
        #expect(model.press(.delete) == [.publish])
        #expect(model.editorState.isDirty)
    }

    @Test("Tab inserts a tab character, which reaches the next stop of 4 display columns")
    func tab() {
        var model = Fixtures.editor("中")
        model.press(.end, .tab)
        #expect(model.editorState.buffer.text == "中\t")
        #expect(model.editorState.buffer.cursorDisplayColumn == 4)
        model.type("x")
        model.press(.tab)
        #expect(model.editorState.buffer.text == "中\tx\t")
        #expect(model.editorState.buffer.cursorDisplayColumn == 8)
    }

    @Test("Control characters typed as characters are not inserted; newline and tab keys are")
    func controlCharacters() {
        var model = Fixtures.editor()
        #expect(model.press(.character("\u{1B}"), .character("\u{7}")) == [])
        model.press(.character("a"), .character("\n"), .character("\t"))
        #expect(model.editorState.buffer.text == "a\n\t")
    }

    @Test("A combining mark typed on its own joins the letter before it")
    func combiningMark() {
        var model = Fixtures.editor()
        model.type("o")
        model.press(.character("\u{308}"))
        let buffer = model.editorState.buffer
        #expect(buffer.currentLine.count == 1)
        #expect(buffer.cursor.column == 1)
        #expect(buffer.text == "o\u{308}")
        #expect(model.session.userInfo["cursorColumn"] == .integer(1))
    }

    @Test("Ctrl-A and Ctrl-E go to the start and end of the line")
    func emacsLineKeys() {
        var model = Fixtures.editor("hello")
        model.press(.control("e"))
        #expect(model.editorState.buffer.cursor.column == 5)
        model.press(.control("a"))
        #expect(model.editorState.buffer.cursor.column == 0)
    }
}
