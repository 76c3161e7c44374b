import Foundation
import Testing
import TerminalUI
@testable import BatonApp

@Suite("Editor scrolling")
struct EditorScrollingTests {
    /// `count` lines "line 1" … "line N".
    static func numberedLines(_ count: Int) -> String {
        (1...count).map { "line \($0)" }.joined(separator: "\n")
    }

    @Test("Moving down past the text area scrolls one line at a time and keeps the cursor on screen")
    func verticalScrolling() {
        // 40×10: title, 7 text rows, message line, status bar.
        var model = Fixtures.editor(Self.numberedLines(30))
        for _ in 0..<7 { model.press(.down) }
        #expect(model.editorState.buffer.cursor.line == 7)
        #expect(model.editorState.scroll.top == 1)
        #expect(model.screenCursor == CursorPosition(x: 0, y: 7))
        #expect(model.screen[1] == "line 2".padding(toLength: 40, withPad: " ", startingAt: 0))
        for _ in 0..<7 { model.press(.up) }
        #expect(model.editorState.scroll.top == 0)
        #expect(model.screenCursor == CursorPosition(x: 0, y: 1))
    }

    @Test("PgDn and PgUp move by the text area's height and page the view with them")
    func paging() {
        var model = Fixtures.editor(Self.numberedLines(30))
        #expect(model.press(.pageDown) == [.publish])
        #expect(model.editorState.buffer.cursor.line == 7)
        #expect(model.editorState.scroll.top == 7)
        #expect(model.screenCursor == CursorPosition(x: 0, y: 1))
        model.press(.pageDown, .pageDown)
        #expect(model.editorState.buffer.cursor.line == 21)
        #expect(model.editorState.scroll.top == 21)
        model.press(.pageDown)
        // The last page: the view stops at the end of the text, the cursor goes to the last line.
        #expect(model.editorState.buffer.cursor.line == 28)
        #expect(model.editorState.scroll.top == 23)
        model.press(.pageDown)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 29, column: 0))
        model.press(.pageDown)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 29, column: 7))
        model.press(.pageUp)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 22, column: 7))
        #expect(model.editorState.scroll.top == 16)
        model.press(.pageUp, .pageUp, .pageUp, .pageUp)
        // "line 1" is shorter than the column kept from "line 30".
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 6))
        model.press(.pageUp)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 0))
        #expect(model.editorState.scroll.top == 0)
    }

    @Test("A long line scrolls horizontally so the cursor stays visible, and back at Home")
    func horizontalScrolling() {
        let line = String(repeating: "0123456789", count: 6)
        var model = Fixtures.editor(line)
        model.press(.end)
        #expect(model.editorState.scroll.left == 21)
        #expect(model.screenCursor == CursorPosition(x: 39, y: 1))
        // Scrolled: "<" where the hidden start is.
        #expect(model.screen[1] == "<23456789012345678901234567890123456789 ")
        model.press(.home)
        #expect(model.editorState.scroll.left == 0)
        // The rest past the edge: ">".
        #expect(model.screen[1] == String(line.prefix(39)) + ">")
    }

    @Test("Wide characters cut by the left or right edge show as blanks, never halves")
    func wideCharactersAtEdges() {
        let line = "a" + String(repeating: "中", count: 25)  // 51 columns; 中 at odd columns
        var model = Fixtures.editor(line)
        // At the start, the 中 at columns 39–40 is cut by the right edge.
        #expect(model.screen[1] == "a" + String(repeating: "中", count: 19) + ">")
        model.press(.end)
        // Cursor at column 51: left = 52 − 40 = 12, which cuts the 中 at columns 11–12.
        #expect(model.editorState.scroll.left == 12)
        #expect(model.screen[1] == "<" + String(repeating: "中", count: 19) + " ")
        #expect(model.screenCursor == CursorPosition(x: 39, y: 1))
    }

    @Test("A wide character under the cursor at the right edge scrolls so all of it shows")
    func wideCharacterUnderCursor() {
        var model = Fixtures.editor(String(repeating: "x", count: 39) + "中", cursor: TextPosition(line: 0, column: 38))
        #expect(model.editorState.scroll.left == 0)
        model.press(.right)
        // 中 takes columns 39–40: one more column is needed.
        #expect(model.editorState.scroll.left == 1)
        #expect(model.screenCursor == CursorPosition(x: 38, y: 1))
    }

    @Test("Moving to a short line after scrolling right goes back to column 0 of the view")
    func backToStart() {
        var model = Fixtures.editor(String(repeating: "y", count: 80) + "\nshort")
        model.press(.end)
        #expect(model.editorState.scroll.left == 41)
        model.press(.down)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 5))
        #expect(model.editorState.scroll.left == 0)
    }

    @Test("A resize keeps the cursor visible in the smaller text area")
    func resize() {
        var model = Fixtures.editor(Self.numberedLines(10) + String(repeating: "z", count: 30))
        model.press(.pageDown, .pageDown, .end)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 9, column: 37))
        #expect(model.editorState.scroll == ScrollOffset(top: 3, left: 0))
        #expect(model.send(.resize(TerminalSize(width: 20, height: 5))) == [])
        // 20×5 has no title: 4 text rows; column 37 needs left = 38 − 20 = 18.
        #expect(model.editorState.scroll == ScrollOffset(top: 6, left: 18))
        #expect(model.screenCursor == CursorPosition(x: 19, y: 3))
    }

    @Test("Scroll given from outside is corrected by the view too")
    func viewCorrectsScroll() {
        var model = Fixtures.editor(Self.numberedLines(30), cursor: TextPosition(line: 20, column: 0))
        if case .editor(var state) = model.session {
            state.scroll = ScrollOffset(top: 0, left: 50)
            model.session = .editor(state)
        }
        #expect(model.screenCursor == CursorPosition(x: 0, y: 7))
        #expect(model.screen[7].hasPrefix("line 21"))
    }
}

@Suite("Scrolling after a resize")
struct ResizeScrollTests {
    @Test("A window that grows back scrolls the lines to their start again")
    func growingWindowScrollsBack() {
        var model = AppModel(
            session: .editor(EditorState(text: "", filePath: nil)),
            size: TerminalSize(width: 60, height: 10),
            status: StatusInfo(peerName: "me", endpoint: "memory", network: .online), now: Date())
        for character in "héllo 你好，wörld 👋 and more" { BatonApp.update(&model, .key(.character(character))) }
        BatonApp.update(&model, .resize(TerminalSize(width: 12, height: 10)))
        guard case .editor(let narrow) = model.session else { Issue.record("not an editor"); return }
        #expect(narrow.scroll.left > 0)
        BatonApp.update(&model, .resize(TerminalSize(width: 60, height: 10)))
        guard case .editor(let wide) = model.session else { Issue.record("not an editor"); return }
        #expect(wide.scroll.left == 0)
        #expect(BatonApp.view(model).frame.lines()[1].hasPrefix("héllo 你好，wörld 👋 and more"))
    }
}
