import Testing
import TerminalUI
@testable import BatonApp

@Suite("The editor shows what the file holds")
struct EditorFidelityTests {
    @Test("Grapheme clusters are drawn whole: Indic conjuncts, a skin tone, a ZWJ family")
    func wholeClusters() {
        let model = Fixtures.editor("नमस्ते क्षत्रिय\n👍🏽 👨‍👩‍👧|", width: 30, height: 10)
        let frame = BatonApp.view(model).frame
        #expect(frame.line(at: 1) == "नमस्ते क्षत्रिय" + String(repeating: " ", count: 23))
        #expect(frame.line(at: 2) == "👍🏽 👨‍👩‍👧|" + String(repeating: " ", count: 24))
        #expect(frame[x: 2, y: 1].grapheme == "स्ते")
        #expect(frame[x: 5, y: 1].grapheme == "त्रि")
        #expect(frame[x: 0, y: 2].grapheme == "👍🏽")
        #expect(frame[x: 0, y: 2].width == 2)
        #expect(frame[x: 3, y: 2].grapheme == "👨‍👩‍👧")
        #expect(frame[x: 3, y: 2].width == 2)
    }

    @Test("A cluster of seven code points (👨‍👩‍👧‍👦) is one cell two columns wide, whole on the screen; the cursor steps over it")
    func longClusterWhole() {
        var model = Fixtures.editor("a 👨‍👩‍👧‍👦 b", width: 30, height: 8)
        model.press(.right, .right, .right)
        expectScreen(model, [
            " (unnamed)                    ",
            "a 👨‍👩‍👧‍👦 b                        ",
            "                              ",
            "                              ",
            "                              ",
            "                              ",
            "^S save  ^Q quit  ^N nearby   ",
            " Editor · 2 peers · online    ",
        ])
        let frame = BatonApp.view(model).frame
        #expect(frame[x: 2, y: 1].grapheme == "👨‍👩‍👧‍👦")
        #expect(frame[x: 2, y: 1].grapheme.unicodeScalars.count == 7)
        #expect(frame[x: 2, y: 1].width == 2)
        #expect(frame[x: 5, y: 1].grapheme == "b")
        // After a, space and the family: the cursor is on the space before b, column 4.
        #expect(model.screenCursor == CursorPosition(x: 4, y: 1))
    }

    @Test("A line past the right edge ends in >, one scrolled past on the left starts with <; never under the cursor")
    func edgeMarks() {
        var model = Fixtures.editor("abcdefghijklmnop\nshort", width: 10, height: 6)
        #expect(model.screen[1] == "abcdefghi>")
        #expect(model.screen[2] == "short     ")
        model.press(.end)
        // The cursor sits after "p", at the right edge: the text scrolled 7 columns.
        #expect(model.screenCursor == CursorPosition(x: 9, y: 1))
        #expect(model.screen[1] == "<ijklmnop ")
        #expect(model.screen[2] == "<         ")
        model.press(.left)
        #expect(model.screen[1] == "<ijklmnop ")
        // A line that fits shows no mark.
        let fitting = Fixtures.editor("abcdefghij", width: 10, height: 6)
        #expect(fitting.screen[1] == "abcdefghij")
    }

    @Test("A wide character cut by the right edge still gets the mark")
    func edgeMarkAfterWide() {
        let model = Fixtures.editor("abcdefgh你好", width: 10, height: 6)
        #expect(model.screen[1] == "abcdefgh >")
    }
}
