import Foundation
import Handoff
import Testing
import TerminalUI
@testable import BatonApp

@Suite("Whole screens")
struct ScreenTests {
    static let items = [
        Fixtures.item("a", "Counter: 5", secondsAgo: 3),
        Fixtures.item("b", "Editing notes.txt", peer: "carol@box", secondsAgo: 125),
    ]

    @Test("The counter at 40×10: block digits in the middle, keys, status bar")
    func counter() {
        let model = Fixtures.counter(42)
        expectScreen(model, [
            "                                        ",
            "             ██  ██  ██████             ",
            "             ██  ██      ██             ",
            "             ██████  ██████             ",
            "                 ██  ██                 ",
            "                 ██  ██████             ",
            "                                        ",
            "                                        ",
            "+/- count · r reset · n nearby · q quit ",
            " Counter · 2 peers · online             ",
        ])
        #expect(model.screenCursor == nil)
    }

    @Test("The editor with 你好，wörld 👋 and the cursor after it")
    func editor() {
        var model = Fixtures.editor()
        model.type("你好，wörld 👋")
        expectScreen(model, [
            " (unnamed) [+]                          ",
            "你好，wörld 👋                          ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 2 peers · online              ",
        ])
        #expect(model.screenCursor == CursorPosition(x: 14, y: 1))
    }

    @Test("A continuable activity nearby: the hint line above the status bar")
    func nearbyHint() {
        var model = Fixtures.editor("notes\n中文", filePath: "notes.txt", isDirty: true, continuedFrom: "bob@desk")
        model.send(.nearbyChanged(Self.items))
        expectScreen(model, [
            " notes.txt [+] — from bob@desk          ",
            "notes                                   ",
            "中文                                    ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "↪ Counter: 5 — bob@desk, 3s ago · Ctrl-N",
            " Editor · 2 peers · online              ",
        ])
        var wide = model
        wide.send(.resize(TerminalSize(width: 60, height: 10)))
        #expect(wide.screen[8] == "↪ Counter: 5 — bob@desk, 3s ago · Ctrl-N to continue        ")
    }

    @Test("The nearby list with two items, the first selected, over the session")
    func nearbyList() {
        var model = Fixtures.editor("notes\n中文", filePath: "notes.txt", isDirty: true, continuedFrom: "bob@desk")
        model.send(.nearbyChanged(Self.items))
        model.press(.control("n"))
        expectScreen(model, [
            " notes.txt [+] — from bob@desk          ",
            "notes                                   ",
            "┌─ Nearby (2) ─────────────────────────┐",
            "│▸ Counter: 5        bob@desk · 3s ago │",
            "│  Editing notes.t… carol@box · 2m ago │",
            "└──────────────────────────────────────┘",
            "                                        ",
            "                                        ",
            "↑↓ select · Enter continue · Esc close  ",
            " Editor · 2 peers · online              ",
        ])
        #expect(model.screenCursor == nil)
        model.press(.down)
        #expect(model.screen[3] == "│  Counter: 5        bob@desk · 3s ago │")
        #expect(model.screen[4] == "│▸ Editing notes.t… carol@box · 2m ago │")
        model.press(.enter)
        #expect(model.screen[8] == "Replace unsaved changes? (y/n)          ")
    }

    @Test("The empty nearby list says how to get something there: a machine paired with this one, not only the same key")
    func emptyNearbyList() {
        var model = Fixtures.counter(-123)
        model.press(.character("n"))
        expectScreen(model, [
            "                                        ",
            "┌─ Nearby ─────────────────────────────┐",
            "│ Nothing nearby yet. Start baton in   │",
            "│ another terminal here, or on a       │",
            "│ machine paired with this one, and    │",
            "│ its activity shows up here.          │",
            "└──────────────────────────────────────┘",
            "                                        ",
            "↑↓ select · Enter continue · Esc close  ",
            " Counter · 2 peers · online             ",
        ])
    }

    @Test("A notice replaces the key help, then goes")
    func notice() {
        var model = Fixtures.counter(7)
        model.send(.continuedElsewhere(peerName: "bob@desk"))
        expectScreen(model, [
            "                                        ",
            "                 ██████                 ",
            "                     ██                 ",
            "                     ██                 ",
            "                     ██                 ",
            "                     ██                 ",
            "                                        ",
            "                                        ",
            "Continued on bob@desk                   ",
            " Counter · 2 peers · online             ",
        ])
        model.send(.tick(Fixtures.start.addingTimeInterval(5)))
        #expect(model.screen[8] == "+/- count · r reset · n nearby · q quit ")
    }

    @Test("20×5: plain digits, no hint line, a short status")
    func smallCounter() {
        var model = Fixtures.counter(1234, width: 20, height: 5)
        model.send(.nearbyChanged(Self.items))
        expectScreen(model, [
            "                    ",
            "        1234        ",
            "                    ",
            "                    ",
            " Counter · online   ",
        ])
        model.press(.character("n"))
        expectScreen(model, [
            "┌─ Nearby (2) ─────┐",
            "│▸ Counter: 5      │",
            "│  Editing notes.t…│",
            "└──────────────────┘",
            " Counter · online   ",
        ])
        model.press(.escape)
        model.send(.continuedElsewhere(peerName: "bob@desk"))
        // No message line: the notice takes the status bar's row while it lasts.
        #expect(model.screen[4] == " Continued on bob@d…")
        model.send(.tick(Fixtures.start.addingTimeInterval(4)))
        #expect(model.screen[4] == " Counter · online   ")
    }

    @Test("20×5: prompts and questions take the status bar's row")
    func smallPrompts() {
        var model = Fixtures.editor("abc", isDirty: true, width: 20, height: 5)
        model.press(.control("q"))
        expectScreen(model, [
            "abc                 ",
            "                    ",
            "                    ",
            "                    ",
            "Save changes? y/n/c ",
        ])
        model.press(.character("y"))
        model.type("a-rather-long-name.txt")
        expectScreen(model, [
            "abc                 ",
            "                    ",
            "                    ",
            "                    ",
            "Save as: g-name.txt ",
        ])
        #expect(model.screenCursor == CursorPosition(x: 19, y: 4))
    }

    @Test("A resize from 40×10 to 20×5 drops the title and message line and keeps the cursor in view")
    func resize() {
        var model = Fixtures.editor(
            "first line of the text\nsecond 第二行 line\nthird", cursor: TextPosition(line: 1, column: 10), fileName: "notes.txt")
        expectScreen(model, [
            " notes.txt                              ",
            "first line of the text                  ",
            "second 第二行 line                      ",
            "third                                   ",
            "                                        ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 2 peers · online              ",
        ])
        #expect(model.screenCursor == CursorPosition(x: 13, y: 2))
        model.send(.resize(TerminalSize(width: 20, height: 5)))
        expectScreen(model, [
            "first line of the t>",
            "second 第二行 line  ",
            "third               ",
            "                    ",
            " Editor · online    ",
        ])
        #expect(model.screenCursor == CursorPosition(x: 13, y: 1))
        model.press(.up, .end)
        expectScreen(model, [
            "<t line of the text ",
            "<nd 第二行 line     ",
            "<d                  ",
            "                    ",
            " Editor · online    ",
        ])
        #expect(model.screenCursor == CursorPosition(x: 19, y: 0))
    }

    @Test("A publish problem shows plainly above the status bar and is flagged in it")
    func publishProblem() {
        var model = Fixtures.counter(1)
        model.send(.publishFailed("The activity record is 71234 bytes encoded, over the 60000-byte limit of one datagram; make its userInfo smaller."))
        #expect(Array(model.screen.suffix(2)) == [
            "⚠ Not handed off: The activity record i…",
            " Counter · online · ⚠ not handed off    ",
        ])
    }

    @Test("Text from peers is inert: escape sequences show as pictures, never reach the terminal")
    func hostilePeerText() {
        var model = Fixtures.counter(1)
        model.send(.nearbyChanged([NearbyItem(
            id: "x", activityType: "dev.baton.editing", title: "Editing \u{1B}[2Jevil\u{7}",
            peerName: "m\u{1B}]0;pwn\u{7}@x", savedAt: Fixtures.start, lastHeard: Fixtures.start)]))
        #expect(model.screen[8] == "↪ Editing ␛[2Jevil␇ — m␛]0;pwn… · Ctrl-N")
        let editor = Fixtures.editor("line\u{1B}[31mred\tx", continuedFrom: "eve\u{1B}[1m")
        #expect(Array(editor.screen.prefix(2)) == [
            " (unnamed) — from eve␛[1m               ",
            "line␛[31mred    x                       ",
        ])
        let cells = BatonApp.view(editor).frame.cells
        #expect(!cells.contains { $0.grapheme.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
    }

    @Test("Every size from 0×0 to 24×12 renders every state without crashing, the cursor inside the screen")
    func allSizes() {
        var states: [AppModel] = []
        var counter = Fixtures.counter(.min)
        counter.send(.nearbyChanged(Self.items), .publishFailed("too large"))
        states.append(counter)
        counter.press(.character("n"))
        states.append(counter)
        var editor = Fixtures.editor(
            String(repeating: "中a👋\t", count: 12) + "\n" + EditorScrollingTests.numberedLines(20),
            cursor: TextPosition(line: 0, column: 30), isDirty: true, continuedFrom: "bob@desk")
        states.append(editor)
        editor.send(.continuedElsewhere(peerName: "bob@desk"))
        states.append(editor)
        editor.press(.control("q"))
        states.append(editor)
        editor.press(.character("y"))
        editor.type("中文文件名.txt")
        states.append(editor)
        editor.press(.home)
        states.append(editor)
        var empty = Fixtures.counter(0)
        empty.press(.control("n"))
        states.append(empty)
        var continuing = Fixtures.counter(3)
        continuing.send(.nearbyChanged(Self.items))
        continuing.press(.control("n"), .enter)
        continuing.send(.continueWaited(id: "a", elapsed: .seconds(1)))
        states.append(continuing)
        continuing.send(.continueProgress(TransferProgress(
            activityID: "a", peerName: "bob@desk", received: 5_000_000, total: 16_000_000, elapsed: .seconds(2))))
        states.append(continuing)
        var offline = Fixtures.editor("big", filePath: "big.log")
        offline.send(.handoffOff("big.log is 40 MB; Baton hands off files up to 16 MB"))
        states.append(offline)
        for state in states {
            for width in 0...24 {
                for height in 0...12 {
                    var model = state
                    model.send(.resize(TerminalSize(width: width, height: height)))
                    let (frame, cursor) = BatonApp.view(model)
                    #expect(frame.width == width && frame.height == height)
                    if let cursor {
                        #expect(cursor.x >= 0 && cursor.x < width && cursor.y >= 0 && cursor.y < height,
                                "cursor \(cursor) outside \(width)×\(height)")
                    }
                }
            }
        }
    }
}
