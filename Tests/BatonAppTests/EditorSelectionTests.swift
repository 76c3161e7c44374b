import Testing
import TerminalUI
@testable import BatonApp

/// Issue 38: moving by word and to the ends of the text, selecting with Shift or a mark, and
/// cutting, copying and pasting a selection, with the keys nano users reach for.
@Suite("Words, marks and selections in the editor")
struct EditorSelectionTests {
    @Test("Ctrl-Right stops at each word's start, across lines; Ctrl-Left comes back the same way")
    func wordMotion() {
        var model = Fixtures.editor("foo bar_baz, qux\n  (x) end")
        var stops: [TextPosition] = []
        for _ in 0..<5 {
            model.press(.modified(.right, .control))
            stops.append(model.editorState.buffer.cursor)
        }
        #expect(stops == [
            TextPosition(line: 0, column: 4), TextPosition(line: 0, column: 13), TextPosition(line: 1, column: 3),
            TextPosition(line: 1, column: 6), TextPosition(line: 1, column: 9),
        ])
        var back: [TextPosition] = []
        for _ in 0..<5 {
            model.press(.modified(.left, .control))
            back.append(model.editorState.buffer.cursor)
        }
        #expect(back == [
            TextPosition(line: 1, column: 6), TextPosition(line: 1, column: 3), TextPosition(line: 0, column: 13),
            TextPosition(line: 0, column: 4), TextPosition(line: 0, column: 0),
        ])
    }

    @Test("Ctrl-End and Alt-/ go to the end of the text, Ctrl-Home and Alt-\\ to its start")
    func textEnds() {
        var model = Fixtures.editor("one\ntwo\nthree", cursor: TextPosition(line: 1, column: 1))
        model.press(.modified(.end, .control))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 5))
        model.press(.modified(.home, .control))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 0))
        model.press(.alt("/"))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 2, column: 5))
        model.press(.escape, .character("\\"))
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 0))
    }

    @Test("Shift-arrows select; Ctrl-K cuts the selection as text, Ctrl-U pastes it back as it was, one undo each")
    func shiftSelectCutPaste() {
        var model = Fixtures.editor("héllo wörld\nsecond line", cursor: TextPosition(line: 0, column: 6))
        model.press(.modified(.right, .shift), .modified(.right, .shift), .modified(.down, .shift))
        #expect(model.editorState.mark == TextPosition(line: 0, column: 6))
        let commands = model.press(.control("k"))
        #expect(commands.contains(.keepClipboard(.text("wörld\nsecond l"))))
        #expect(model.editorState.buffer.text == "héllo ine")
        #expect(model.editorState.mark == nil)
        model.press(.modified(.end, .control), .control("u"))
        #expect(model.editorState.buffer.text == "héllo inewörld\nsecond l")
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "héllo ine")
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "héllo wörld\nsecond line")
    }

    @Test("A plain arrow ends a Shift selection; a mark set with Ctrl-6 stays while arrows move, and Ctrl-6 again unsets it")
    func markKinds() {
        var model = Fixtures.editor("abcdef")
        model.press(.modified(.right, .shift), .right)
        #expect(model.editorState.mark == nil)
        #expect(model.editorState.buffer.cursor == TextPosition(line: 0, column: 2))
        model.press(.control("^"), .right, .right)
        #expect(model.editorState.selection?.start == TextPosition(line: 0, column: 2))
        #expect(model.editorState.selection?.end == TextPosition(line: 0, column: 4))
        #expect(model.editorState.findResult == nil)
        model.press(.control("^"))
        #expect(model.editorState.mark == nil)
        #expect(model.editorState.findResult == "mark unset")
        model.press(.alt("a"), .left)
        #expect(model.editorState.selection?.end == TextPosition(line: 0, column: 4))
    }

    @Test("Alt-6 copies the selection (or the line) without changing the text; Backspace deletes a selection")
    func copyAndDelete() {
        var model = Fixtures.editor("one two three")
        model.press(.modified(.right, .shift), .modified(.right, .shift), .modified(.right, .shift))
        #expect(model.press(.alt("6")) == [.publish, .keepClipboard(.text("one"))])
        #expect(model.editorState.buffer.text == "one two three")
        #expect(model.editorState.mark == nil)
        #expect(model.press(.escape, .character("6")) == [.keepClipboard(.lines(["one two three"]))])
        model.press(.modified(.right, .control), .control("^"), .modified(.right, .control), .backspace)
        #expect(model.editorState.buffer.text == "one three")
        model.press(.control("z"))
        #expect(model.editorState.buffer.text == "one two three")
        // A mark with nothing selected yet: Backspace deletes a character, and takes the mark
        // with it rather than leave a selection behind.
        model.press(.modified(.end, .control), .control("^"), .backspace)
        #expect(model.editorState.buffer.text == "one two thre")
        #expect(model.editorState.mark == nil)
    }

    @Test("The selection is drawn in reverse video, its line break as one cell")
    func selectionOnScreen() {
        var model = Fixtures.editor("abc\ndef", cursor: TextPosition(line: 0, column: 1))
        model.press(.modified(.down, .shift))
        let (frame, _) = BatonApp.view(model)
        let reversed = (0..<5).map { frame[x: $0, y: 1].style.reverse }
        #expect(reversed == [false, true, true, true, false])
        #expect(frame[x: 0, y: 2].style.reverse)
        #expect(!frame[x: 1, y: 2].style.reverse)
    }

    @Test("F1 shows the keys over the session; any key closes it, and the session does not get that key")
    func helpScreen() {
        var model = Fixtures.editor("text", width: 80, height: 30)
        model.press(.function(1))
        #expect(model.overlay == .help(first: 0))
        let screen = BatonApp.view(model).frame.lines().joined(separator: "\n")
        for key in ["Ctrl-S", "Ctrl-\\, Alt-R", "Shift-arrows", "Alt-6", "Ctrl-6, Alt-A", "Ctrl-←, Ctrl-→", "F1"] {
            #expect(screen.contains(key), "the help screen does not list \(key)")
        }
        #expect(screen.contains("─ Keys"))
        model.type("x")
        #expect(model.overlay == nil)
        #expect(model.editorState.buffer.text == "text")
        var counter = Fixtures.counter(width: 60, height: 20)
        counter.press(.function(1))
        #expect(BatonApp.view(counter).frame.lines().joined().contains("count up, down"))
    }

    @Test("In an 80 × 24 terminal the keys that do not fit are scrolled to with ↓ and PgDn; any other key closes the list")
    func helpScrolls() {
        var model = Fixtures.editor("text", width: 80, height: 24)
        model.press(.function(1))
        func screen() -> String { BatonApp.view(model).frame.lines().joined(separator: "\n") }
        #expect(screen().contains("Ctrl-S"))
        #expect(!screen().contains("Alt-M"))
        #expect(screen().contains("below: ↑ ↓ PgUp PgDn"))
        #expect(screen().contains("↑ ↓ PgUp PgDn: more keys"))
        model.press(.pageDown)
        #expect(screen().contains("Alt-M"))
        #expect(screen().contains("this list"))
        #expect(screen().contains("above: ↑ ↓ PgUp PgDn"))
        #expect(!screen().contains("below"))
        // Past the end it stays at the end; back up by a row, then a page.
        model.press(.pageDown, .down)
        #expect(screen().contains("Alt-M"))
        model.press(.up)
        #expect(screen().contains("above, 1 below"))
        model.press(.pageUp)
        #expect(screen().contains("Ctrl-S"))
        #expect(model.overlay == .help(first: 0))
        // Any other key closes it and goes no further.
        model.type("x")
        #expect(model.overlay == nil)
        #expect(model.editorState.buffer.text == "text")
    }

    @Test("However short the window, every key can be scrolled into view")
    func helpReachesEveryKey() {
        for kind in [SessionKind.editor, .counter] {
            let keys = HelpPanel.keys(for: kind)
            #expect(keys.count >= 5)
            for height in [6, 9, 14, 24, 40] {
                var model = kind == .editor ? Fixtures.editor("", width: 80, height: height) : Fixtures.counter(width: 80, height: height)
                model.press(.function(1))
                var seen = Set<String>()
                for _ in 0...keys.count {
                    let lines = BatonApp.view(model).frame.lines()
                    for entry in keys where lines.contains(where: { $0.contains(entry.key) && $0.contains(entry.does) }) {
                        seen.insert(entry.key)
                    }
                    model.press(.down)
                    if model.overlay == nil { break }
                }
                #expect(seen == Set(keys.map(\.key)), "\(kind), \(height) rows: not seen \(Set(keys.map(\.key)).subtracting(seen))")
            }
        }
    }

    @Test("The status bar's hint names F1 where there is room")
    func hintNamesHelp() {
        let model = Fixtures.editor("", width: 80, height: 10)
        #expect(BatonApp.view(model).frame.lines().joined().contains("F1 keys"))
    }
}
