import Foundation
import Testing
import TerminalUI
@testable import BatonApp

@Suite("Search, cut and paste, go to line, quit keys")
struct SearchCutTests {
    static let text = "one fish\ntwo fish\nred fish\nblue"

    @Test("Ctrl-F finds the next match and says which; F3 and Ctrl-F with an empty answer go on and wrap")
    func search() {
        var model = Fixtures.editor(Self.text)
        model.press(.control("f"))
        model.type("fish")
        expectScreen(model, [
            " (unnamed)                              ",
            "one fish                                ",
            "two fish                                ",
            "red fish                                ",
            "blue                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "Search: fish                            ",
            " Editor · 2 peers · online              ",
        ])
        model.press(.enter)
        #expect(model.overlay == nil)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 4))
        expectScreen(model, [
            " (unnamed)                              ",
            "one fish                                ",
            "two fish                                ",
            "red fish                                ",
            "blue                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 1 of 3 · 2 peers · online     ",
        ])
        model.press(.function(3))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 4))
        model.press(.control("w"))
        #expect(model.openPrompt?.label == "Search [fish]: ")
        model.press(.control("f"))
        #expect(model.overlay == nil)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 4))
        #expect(model.editorState.findResult == "3 of 3")
        model.press(.control("f"), .enter)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 4))
        expectScreen(model, [
            " (unnamed)                              ",
            "one fish                                ",
            "two fish                                ",
            "red fish                                ",
            "blue                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 1 of 3, wrapped · online      ",
        ])
        // The next key clears what the search said.
        model.press(.right)
        #expect(model.screen[9] == " Editor · 2 peers · online              ")
    }

    @Test("A search that finds nothing says so and leaves the cursor; Esc cancels the prompt")
    func notFoundAndEscape() {
        var model = Fixtures.editor(Self.text, cursor: TextPosition(line: 1, column: 2))
        model.press(.control("f"))
        model.type("cat")
        model.press(.enter)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 2))
        expectScreen(model, [
            " (unnamed)                              ",
            "one fish                                ",
            "two fish                                ",
            "red fish                                ",
            "blue                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · \"cat\" not found · online      ",
        ])
        model.press(.control("f"))
        model.type("blue")
        model.press(.escape)
        #expect(model.overlay == nil)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 2))
        #expect(model.editorState.lastSearch == "cat")
        #expect(model.screen[8] == "^S save  ^O save as  ^Q quit  ^N nearby ")
    }

    @Test("Repeated Ctrl-K gathers lines, Ctrl-U pastes them; the cut and the paste are one undo step each")
    func cutAndPaste() {
        var model = Fixtures.editor("a\nb\nc\nd\ne", cursor: TextPosition(line: 1, column: 0))
        model.press(.control("k"), .control("k"))
        #expect(model.editorState.buffer.text == "a\nd\ne")
        model.press(.down, .down)
        model.press(.control("u"))
        expectScreen(model, [
            " (unnamed) [+]                          ",
            "a                                       ",
            "d                                       ",
            "eb                                      ",
            "c                                       ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 2 peers · online              ",
        ])
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "a\nd\ne")
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "a\nb\nc\nd\ne")
        #expect(model.editorState.buffer.cursor == TextPosition(line: 1, column: 0))
        // A key between two Ctrl-K starts a new cut; the last line's text is cut, the line stays.
        model.press(.control("k"), .down, .down, .down, .control("k"))
        #expect(model.editorState.buffer.text == "a\nc\nd\n")
        #expect(model.editorState.cutLines == ["e"])
    }

    @Test("Ctrl-K asks to keep the cut lines as the clipboard that follows; a clipboard from another machine is what Ctrl-U pastes")
    func clipboardFollows() {
        var model = Fixtures.editor("a\nb\nc", cursor: TextPosition(line: 0, column: 0))
        #expect(model.press(.control("k")) == [.publish, .keepClipboard(.lines(["a"]))])
        #expect(model.press(.control("k")) == [.publish, .keepClipboard(.lines(["a", "b"]))])
        #expect(model.clipboard == .lines(["a", "b"]))
        // Cut on another machine of the group: Ctrl-U pastes those lines, and the next Ctrl-K starts anew.
        _ = BatonApp.update(&model, .clipboard(.lines(["from", "laptop"])))
        model.press(.control("u"))
        #expect(model.editorState.buffer.text == "from\nlaptop\nc")
        model.press(.up, .control("k"))
        #expect(model.clipboard == .lines(["laptop"]))
        // A selection cut there is pasted as it was, without a line break of its own.
        _ = BatonApp.update(&model, .clipboard(.text("sel")))
        model.press(.control("u"))
        #expect(model.editorState.buffer.text == "from\nselc")
    }

    @Test("Ctrl-G goes to a line; past the end to the last line; a non-number is refused")
    func goToLine() {
        var model = Fixtures.editor(Self.text)
        model.press(.control("g"))
        model.type("x")
        model.press(.enter)
        #expect(model.openPrompt?.problem == "type a line number from 1 to 4")
        model.press(.backspace)
        model.type("3")
        model.press(.enter)
        expectScreen(model, [
            " (unnamed)                              ",
            "one fish                                ",
            "two fish                                ",
            "red fish                                ",
            "blue                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 2 peers · online              ",
        ])
        model.press(.control("g"))
        model.type("99")
        model.press(.enter)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 3, column: 0))
    }

    @Test("The title shows the unsaved mark after an edit and loses it after saving")
    func modifiedMark() {
        var model = Fixtures.editor("x", filePath: "notes.txt")
        #expect(model.screen[0] == " notes.txt                              ")
        model.type("y")
        #expect(model.screen[0] == " notes.txt [+]                          ")
        model.press(.control("s"))
        model.send(.fileSaved(path: "notes.txt"))
        #expect(model.screen[0] == " notes.txt                              ")
    }

    @Test("Ctrl-X quits as Ctrl-Q does, asking first about unsaved changes")
    func ctrlXQuits() {
        var clean = Fixtures.editor("x")
        #expect(clean.press(.control("x")) == [.quit])
        var dirty = Fixtures.editor("x")
        dirty.type("y")
        #expect(dirty.press(.control("x")) == [])
        #expect(dirty.overlay == .confirm(.quitWithUnsavedChanges))
    }
}
