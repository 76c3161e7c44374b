import Handoff
import Testing
import TerminalUI
@testable import BatonApp

/// Long lines scrolled sideways: drawn from the place a checkpoint gives, the screen must be
/// the one drawn walking each line from its start.
@Suite("Long lines on screen")
struct LongLineScreenTests {
    static func model(_ buffer: TextBuffer, width: Int = 40, height: Int = 10) -> AppModel {
        Fixtures.model(.editor(EditorState(buffer: buffer, fileName: "long.txt")), width: width, height: height)
    }

    @Test("At the end of a 10,000-character line the view shows its last columns after a < mark, the cursor after them")
    func endOfLongLine() {
        let line = String(repeating: "0123456789", count: 1000)
        var model = Self.model(TextBuffer(text: line + "\nshort"))
        model.press(.end)
        // 40 columns: the cursor in the last one, the 39 before it the line's columns 9961–9999,
        // the first of them covered by the mark.
        let row = "<" + String(line.dropFirst(9962))
        #expect(model.screen.contains { $0.hasPrefix(row) })
        #expect(model.screenCursor?.x == 39)
        model.type("ab")
        #expect(model.screen.contains { $0.hasPrefix("<" + String(line.dropFirst(9964)) + "ab") })
        #expect(model.editorState.buffer.cursorColumns == (10002, 1))
    }

    @Test("Random keys in long mixed-script lines draw what whole-line walks draw, with and without the memo", arguments: [5, 17] as [UInt64])
    func randomKeysMatchWholeLines(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        let lines = (0..<3).map { _ in LongLineTests.longLine(&random, bytes: 5000) } + ["\tshort 中文"]
        let text = lines.joined(separator: "\n")
        var fast = Self.model(TextBuffer(text: text, longLineBytes: 64, checkpointSpacing: 5))
        var real = Self.model(TextBuffer(text: text))
        var whole = Self.model(TextBuffer(text: text, longLineBytes: .max, checkpointSpacing: 512))
        let memo = ViewMemo()
        let keys: [Key] = [
            .left, .right, .up, .down, .home, .end, .end, .backspace, .delete, .tab, .character("x"), .character("宽"),
            .character("\u{301}"), .character("🇸"), .character("👍🏽"),
        ]
        let sizes = [TerminalSize(width: 40, height: 10), TerminalSize(width: 13, height: 6), TerminalSize(width: 80, height: 24)]
        var scrolledFar = false
        for step in 0..<600 {
            await Task.yield()  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
            let message: AppMessage = step % 97 == 96
                ? .resize(sizes[Int.random(in: 0..<sizes.count, using: &random)])
                : .key(keys.randomElement(using: &random)!)
            // Now and then a jump into the middle of a line, as a search would.
            if step % 40 == 39 {
                let target = TextPosition(line: Int.random(in: 0..<3, using: &random), column: Int.random(in: 0...4000, using: &random))
                for index in 0..<3 {
                    var model = [fast, real, whole][index]
                    guard case .editor(var state) = model.session else { return }
                    state.buffer.move(to: target)
                    model.session = .editor(state)
                    switch index {
                    case 0: fast = model
                    case 1: real = model
                    default: whole = model
                    }
                }
            }
            BatonApp.update(&fast, message)
            BatonApp.update(&real, message)
            BatonApp.update(&whole, message)
            let expected = BatonApp.view(whole)
            let drawn = [BatonApp.view(fast), BatonApp.view(real), BatonApp.view(fast, memo: memo)]
            for frame in drawn {
                #expect(frame.frame == expected.frame, "seed \(seed) step \(step)")
                #expect(frame.cursor == expected.cursor, "seed \(seed) step \(step)")
            }
            memo.recycle(drawn[2].frame)
            if whole.editorState.scroll.left > 1000 { scrolledFar = true }
            guard drawn.allSatisfy({ $0.frame == expected.frame }) else { return }
        }
        #expect(scrolledFar)
        #expect(fast.editorState.buffer.text == whole.editorState.buffer.text)
    }
}
