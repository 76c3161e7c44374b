import BatonApp
import Foundation
import Handoff
import TerminalUI

/// `handoff-bench editor [megabytes] [rounds]`: the editor's model on a file of mixed-script
/// text (Latin, Cyrillic, CJK, emoji, tabs; lines of 20–120 bytes), as `baton edit` holds it:
/// opening the text into a buffer, one key typed, and undo and redo of one step (a run of
/// typing in the middle of the file) through `BatonApp.update`, each with and without drawing
/// the screen (`BatonApp.view`, 80×24). Times in a release build, no terminal, no network.
enum EditorBench {
    static let words = [
        "lorem", "ipsum", "dolor", "sit", "amet", "Привет", "мир", "строка", "текст", "中文", "编辑器",
        "文本", "日本語", "한국어", "👋", "🎉", "👨‍👩‍👧", "café", "naïve", "Ελληνικά", "\t",
    ]

    static func text(megabytes: Int) -> String {
        var random = SplitMix64(seed: 23)
        var lines = ["BEGIN the first line"]
        var size = lines[0].utf8.count + 1
        while size < megabytes * 1_000_000 {
            let line = (0..<Int.random(in: 3...14, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            lines.append(line)
            size += line.utf8.count + 1
        }
        return lines.joined(separator: "\n")
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }

    static func summary(_ samples: [Double]) -> String {
        let sorted = samples.sorted()
        let p50 = sorted[sorted.count / 2]
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        return String(format: "p50 %.3f ms, p99 %.3f ms, max %.3f ms (%d)", p50, p99, sorted.last!, sorted.count)
    }

    static func run(megabytes: Int, rounds: Int) {
        let clock = ContinuousClock()
        let text = text(megabytes: megabytes)
        print("editor: \(text.utf8.count) bytes of mixed-script text, \(rounds) rounds")
        var buffer = TextBuffer()
        let opened = clock.measure { buffer = TextBuffer(text: text) }
        print(String(format: "  open into a TextBuffer: %.1f ms (%d lines)", milliseconds(opened), buffer.lineCount))

        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let status = StatusInfo(peerName: "alice@laptop", endpoint: "bench", network: .online)
        var model = AppModel(
            session: .editor(EditorState(buffer: buffer, fileName: "mixed.txt")),
            size: TerminalSize(width: 80, height: 24), status: status, now: now)
        _ = BatonApp.view(model)
        // The cursor to the middle of the file, then one run of typing: one undo step.
        for key in [Key.control("g")] + String(buffer.lineCount / 2).map({ Key.character($0) }) + [.enter] {
            BatonApp.update(&model, .key(key))
        }
        var typing: [Double] = []
        for character in "typed here" {
            typing.append(milliseconds(clock.measure { BatonApp.update(&model, .key(.character(character))) }))
        }
        print("  key typed, update only: \(summary(typing))")
        guard case .editor(let typed) = model.session else { return }
        let typedText = typed.buffer.version

        var undo: [Double] = []
        var redo: [Double] = []
        var undoDrawn: [Double] = []
        for round in 0..<rounds {
            let drawing = round % 2 == 1
            let undone = clock.measure {
                BatonApp.update(&model, .key(.control("z")))
                if drawing { _ = BatonApp.view(model) }
            }
            if drawing { undoDrawn.append(milliseconds(undone)) } else { undo.append(milliseconds(undone)) }
            redo.append(milliseconds(clock.measure { BatonApp.update(&model, .key(.control("y"))) }))
        }
        guard case .editor(let after) = model.session, after.buffer.lineCount == typed.buffer.lineCount,
              after.buffer.line(after.buffer.cursor.line) == typed.buffer.line(typed.buffer.cursor.line)
        else {
            print("  undo and redo did not give the typed text back")
            return
        }
        _ = typedText
        print("  undo of one step (\"typed here\"), update only: \(summary(undo))")
        print("  undo of one step, update and view (80×24): \(summary(undoDrawn))")
        print("  redo of one step, update only: \(summary(redo))")
        // A key as the program takes it: update, the frame built (view), and compared with the
        // last one (what the terminal backend writes).
        var viewed: [Double] = []
        var memoViewed: [Double] = []
        var diffed: [Double] = []
        let memo = ViewMemo()
        var (last, _) = BatonApp.view(model, memo: memo)
        for round in 0..<max(rounds, 200) {
            // A letter typed, then taken back: the line keeps its length, and the view its
            // horizontal scroll, as while typing a line that fits the screen.
            BatonApp.update(&model, .key(round % 2 == 0 ? .character("x") : .backspace))
            var frame = last
            viewed.append(milliseconds(clock.measure { frame = BatonApp.view(model).frame }))
            var memoFrame = last
            memoViewed.append(milliseconds(clock.measure { memoFrame = BatonApp.view(model, memo: memo).frame }))
            precondition(memoFrame == frame, "the memo drew another frame")
            var changed = 0
            diffed.append(milliseconds(clock.measure { changed = frame.diff(from: last).count }))
            precondition(changed > 0, "a typed key changed nothing on screen")
            last = frame
        }
        // The same with cold caches, as a key typed after a pause meets them: 64 MiB of other
        // memory is read between keys, so update, view and diff find little in cache.
        var other = [UInt64](repeating: 1, count: 8 << 20)
        var sink: UInt64 = 0
        var coldUpdate: [Double] = []
        var coldView: [Double] = []
        var coldDiff: [Double] = []
        var coldAll: [Double] = []
        for round in 0..<max(rounds, 200) {
            for index in stride(from: round % 8, to: other.count, by: 8) { sink &+= other[index]; other[index] = sink }
            let start = clock.now
            BatonApp.update(&model, .key(round % 2 == 0 ? .character("x") : .backspace))
            let updated = clock.now
            let frame = BatonApp.view(model, memo: memo).frame
            let viewed = clock.now
            let changed = frame.diff(from: last).count
            let diffed = clock.now
            precondition(changed > 0, "a typed key changed nothing on screen")
            memo.recycle(frame)
            last = frame
            coldUpdate.append(milliseconds(updated - start))
            coldView.append(milliseconds(viewed - updated))
            coldDiff.append(milliseconds(diffed - viewed))
            coldAll.append(milliseconds(diffed - start))
        }
        print("  cold caches: update \(summary(coldUpdate))")
        print("  cold caches: view with a memo \(summary(coldView))")
        print("  cold caches: diff \(summary(coldDiff))")
        // Used, so that the sweep is not left out as dead code.
        precondition(sink != 0, "the sweep between keys read nothing")
        print("  cold caches: key to the changes, in all \(summary(coldAll))")
        print("  key typed, the frame built (view, 80×24): \(summary(viewed))")
        print("  key typed, the frame built from the last one's rows (view with a memo): \(summary(memoViewed))")
        print("  key typed, the frame compared with the last (diff): \(summary(diffed))")
    }
}
