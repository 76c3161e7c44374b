import BatonApp
import Foundation
import TerminalUI

/// `handoff-bench key-path FILE [keys] [rounds] [gap-ms]`: the editor's own part of a key, as
/// `bench/syntax_bench.py` types it (letters in front of the first line of FILE, 80×24): the
/// update and the frame drawn with the view memo a running editor keeps. Not the terminal's
/// part (input, ncurses), which is the same code for every key. Colours come from the syntax
/// FILE's name picks, as `baton edit` picks it (`BATON_NANORC_FOLDERS` says where from).
/// With a gap, each key waits that long first, as typed keys do: the caches a key finds then
/// are those a typist's key finds. Prints each round's p50 / p99 / mean over `keys` keys, and the mean of the rounds.
enum KeyPathBench {
    static func run(path: String, keys: Int, rounds: Int, gapMilliseconds: Int) throws {
        let clock = ContinuousClock()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let status = StatusInfo(peerName: "alice@laptop", endpoint: "bench", network: .online)
        print("key path: \(keys) letters typed at the start of \(path) (\(text.utf8.count / 1_000_000) MB), update + view with the memo")
        var means: [Double] = []
        for round in 1...rounds {
            var model = AppModel(
                session: .editor(EditorState(text: text, filePath: path)),
                size: TerminalSize(width: 80, height: 24), status: status, now: Date(timeIntervalSince1970: 1_700_000_000))
            let memo = ViewMemo()
            memo.recycle(BatonApp.view(model, memo: memo).frame)
            var samples: [Double] = []
            var updates: [Double] = []
            var views: [Double] = []
            for index in 0..<keys {
                let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(index % 26)))
                if gapMilliseconds > 0 { usleep(UInt32(gapMilliseconds * 1000)) }
                let t0 = clock.now
                BatonApp.update(&model, .key(.character(letter)))
                let t1 = clock.now
                let frame = BatonApp.view(model, memo: memo).frame
                let t2 = clock.now
                memo.recycle(frame)
                updates.append(EditorBench.milliseconds(t1 - t0))
                views.append(EditorBench.milliseconds(t2 - t1))
                samples.append(EditorBench.milliseconds(clock.now - t0))
            }
            let mean = samples.reduce(0, +) / Double(samples.count)
            means.append(mean)
            print(String(format: "  round %d: %@, mean %.1f µs (update %.1f, view %.1f)", round, EditorBench.summary(samples), mean * 1000,
                updates.reduce(0, +) / Double(keys) * 1000, views.reduce(0, +) / Double(keys) * 1000))
        }
        print(String(format: "  mean of the rounds: %.1f µs a key", means.reduce(0, +) / Double(means.count) * 1000))
    }
}
