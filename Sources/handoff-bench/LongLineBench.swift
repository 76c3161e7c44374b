import BatonApp
import Foundation
import Handoff
import TerminalUI

/// `handoff-bench long-line [kilobytes]`: a key typed into one very long line (a minified file,
/// a log line, a CSV with no line breaks), at its start and at its end, in an ASCII line and in
/// a mixed-script one, and in a line a tenth as long: the key's update, its frame (80×24), and
/// the session's userInfo as a save takes it. A key's cost should not grow with the line.
enum LongLineBench {
    static func line(bytes: Int, ascii: Bool) -> String {
        var random = SplitMix64(seed: 29)
        let words = ascii ? ["lorem", "ipsum", "dolor", "sit", "amet", "42", "{\"k\":1}"] : EditorBench.words.filter { $0 != "\t" }
        var line = ""
        line.reserveCapacity(bytes + 64)
        while line.utf8.count < bytes {
            line += words.randomElement(using: &random)!
            line += " "
        }
        return line
    }

    static func run(kilobytes: Int) {
        let clock = ContinuousClock()
        print("long line: one line, a key typed at its start and at its end, update + view + userInfo")
        for bytes in [kilobytes * 100, kilobytes * 1000] {
            for ascii in [true, false] {
                let text = line(bytes: bytes, ascii: ascii)
                let status = StatusInfo(peerName: "alice@laptop", endpoint: "bench", network: .online)
                var model = AppModel(
                    session: .editor(EditorState(buffer: TextBuffer(text: text), fileName: "long.txt")),
                    size: TerminalSize(width: 80, height: 24), status: status, now: Date(timeIntervalSince1970: 1_700_000_000))
                let memo = ViewMemo()
                _ = BatonApp.view(model, memo: memo)
                for place in ["start", "end"] {
                    if place == "end" { BatonApp.update(&model, .key(.end)) }
                    var samples: [Double] = []
                    for round in 0..<60 {
                        let taken = clock.measure {
                            BatonApp.update(&model, .key(round % 2 == 0 ? .character("x") : .backspace))
                            let frame = BatonApp.view(model, memo: memo).frame
                            memo.recycle(frame)
                            _ = model.session.userInfo
                        }
                        samples.append(EditorBench.milliseconds(taken))
                    }
                    let kind = ascii ? "ASCII" : "mixed-script"
                    print("  \(text.utf8.count / 1000) KB \(kind), key at the \(place): \(EditorBench.summary(samples))")
                }
            }
        }
    }
}
