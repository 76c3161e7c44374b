import Testing
import TerminalUI
@testable import BatonApp

/// `BatonApp.view(_:memo:)` reuses the rows it drew in the last frame; every frame must be the
/// one drawn without the memo.
@Suite("The view's row memo")
struct ViewMemoTests {
    /// Lines that scroll sideways, wide and zero-width clusters, tabs, and a lone CR.
    static let text = [
        "plain ASCII line",
        String(repeating: "0123456789", count: 12),
        "中文 and 日本語 beside 👋🏽 and 👨‍👩‍👧 " + String(repeating: "宽", count: 50),
        "\tTabbed\tline\twith\ttabs",
        "नमस्ते क्षत्रिय — e\u{301}\u{301} — 🇫🇷",
        "a lone \r inside",
        "",
    ].joined(separator: "\n")

    static let steps = 800

    /// What a walk saw: the memo, frames compared, rows the diff passed over by their numbers.
    struct Walk {
        let memo: ViewMemo
        var frames = 0
        var rowsNotRead = 0
        var scrolledSideways = false
        var model: AppModel
    }

    /// A random walk of `keys` (and a new size every 100 steps), each frame drawn with the memo
    /// and without it: the two must be equal, and the diff from the last memo frame must make
    /// the next one, rows numbered alike passed over.
    static func walk(keys: [Key], seed: UInt64) async -> Walk {
        var generator = SeededGenerator(seed: seed)
        let sizes = [TerminalSize(width: 40, height: 10), TerminalSize(width: 13, height: 6), TerminalSize(width: 80, height: 24)]
        var walk = Walk(memo: ViewMemo(), model: Fixtures.editor(Self.text))
        var last: ScreenBuffer?
        for step in 0..<Self.steps {
            // The unit run starts every test at once on two cores: give the thread back now and
            // then, so tests that wait for the network are not starved meanwhile.
            if step % 25 == 0 { await Task.yield() }
            if step % 100 == 99 {
                BatonApp.update(&walk.model, .resize(sizes[Int(generator.next() % UInt64(sizes.count))]))
            } else {
                BatonApp.update(&walk.model, .key(keys[Int(generator.next() % UInt64(keys.count))]))
            }
            let model = walk.model
            let plain = BatonApp.view(model)
            let memoized = BatonApp.view(model, memo: walk.memo)
            if model.editorState.scrollShowingCursor(width: model.layout.contentWidth, height: model.layout.contentHeight).left > 0 {
                walk.scrolledSideways = true
            }
            #expect(memoized.frame == plain.frame, "step \(step)")
            #expect(memoized.cursor == plain.cursor, "step \(step)")
            if memoized.frame != plain.frame { break }
            if var before = last, before.size == memoized.frame.size {
                for change in memoized.frame.diff(from: before) { before.put(change.cell, x: change.x, y: change.y) }
                #expect(before == memoized.frame, "the diff at step \(step)")
                walk.rowsNotRead += (0..<before.height).filter {
                    memoized.frame.rowStamps[$0] != 0 && memoized.frame.rowStamps[$0] == last?.rowStamps[$0]
                }.count
            }
            last = memoized.frame
            // Handed back as the Program does once drawn: two frames on, it is drawn into again.
            walk.memo.recycle(memoized.frame)
            walk.frames += 1
        }
        return walk
    }

    @Test("A random walk of keys and sizes draws, with the memo, the frames drawn without it")
    func memoMatchesPlainView() async {
        let keys: [Key] = [
            .left, .right, .up, .down, .home, .end, .backspace, .delete, .enter, .tab,
            .character("x"), .character("宽"), .character("👍🏽"), .character("é"),
        ]
        let walk = await Self.walk(keys: keys, seed: 23)
        #expect(walk.frames == Self.steps)
        #expect(walk.rowsNotRead > Self.steps, "rows numbered alike in two frames were passed over")
        #expect(walk.memo.rowsInPlace > Self.steps, "rows were found in place, not copied")
        #expect(walk.memo.framesReused > Self.steps / 2)
        // The walk did reach a line that scrolls sideways, and the text still holds wide graphemes.
        #expect(walk.memo.rowsReused > Self.steps)
        #expect(walk.scrolledSideways)
        #expect(walk.model.editorState.buffer.text.contains("宽"))
    }

    @Test("The same with line numbers, soft wrap, the help screen, a selection and messages coming and going")
    func memoMatchesPlainViewWithEverythingElse() async {
        let keys: [Key] = [
            .left, .right, .up, .down, .end, .backspace, .enter, .character("x"), .character("宽"),
            .alt("n"), .alt("s"), .alt("a"), .function(1), .escape, .pageDown,
        ]
        let walk = await Self.walk(keys: keys, seed: 29)
        #expect(walk.frames == Self.steps)
        #expect(walk.memo.rowsInPlace > Self.steps / 4, "rows were found in place, not copied")
    }

    @Test("The status bar is the last frame's row until what it shows changes")
    func statusBarFollowsItsInputs() {
        var model = Fixtures.editor("text")
        let memo = ViewMemo()
        _ = BatonApp.view(model, memo: memo)
        model.press(.character("x"))
        #expect(BatonApp.view(model, memo: memo).frame == BatonApp.view(model).frame)
        #expect(memo.statusesReused == 1, "a key changes nothing in it")
        model.status.peersHeard = 7
        let memoized = BatonApp.view(model, memo: memo)
        #expect(memoized.frame == BatonApp.view(model).frame)
        #expect(memoized.frame.lines().last?.contains("7 peers") == true)
        #expect(memo.statusesReused == 1, "drawn again for the peers")
        BatonApp.update(&model, .resize(TerminalSize(width: 20, height: 10)))
        #expect(BatonApp.view(model, memo: memo).frame == BatonApp.view(model).frame)
        #expect(memo.statusesReused == 1, "drawn again at the new width")
        model.press(.character("y"))
        #expect(BatonApp.view(model, memo: memo).frame == BatonApp.view(model).frame)
        #expect(memo.statusesReused == 2)
    }

    @Test("The nearby hint is the last frame's row until its activity, age or width changes")
    func nearbyHintFollowsItsInputs() {
        var model = Fixtures.editor("text")
        let item = NearbyItem(
            id: "x", activityType: "dev.baton.editing", title: "Editing notes.txt — draft", peerName: "bob@desk",
            savedAt: Fixtures.start, lastHeard: Fixtures.start)
        model.send(.nearbyChanged([item]))
        let memo = ViewMemo()
        let first = BatonApp.view(model, memo: memo)
        #expect(first.frame == BatonApp.view(model).frame)
        #expect(first.frame.lines()[8].hasPrefix("↪ Editing notes.txt — draft"))
        var changes: [(String, (inout AppModel) -> Void)] = [
            ("a key", { $0.press(.character("x")) }),
            ("a second later", { $0.now = $0.now.addingTimeInterval(1) }),
            ("a minute later", { $0.now = $0.now.addingTimeInterval(60) }),
            ("a narrower screen", { BatonApp.update(&$0, .resize(TerminalSize(width: 30, height: 10))) }),
            ("another title", { model in
                var renamed = item
                renamed.title = "Editing other.txt"
                model.send(.nearbyChanged([renamed]))
            }),
        ]
        changes.append(("a key again", { $0.press(.character("y")) }))
        for (what, change) in changes {
            let reused = memo.hintsReused
            change(&model)
            let memoized = BatonApp.view(model, memo: memo)
            #expect(memoized.frame == BatonApp.view(model).frame, "after \(what)")
            // Copied after a key, which changes nothing in it; drawn again after anything else.
            #expect(memo.hintsReused == reused + (what.hasPrefix("a key") ? 1 : 0), "after \(what)")
        }
        #expect(BatonApp.view(model, memo: memo).frame.lines().contains { $0.hasPrefix("↪ Editing other.txt") })
    }

    /// Makes each change and draws a frame with `memo`: the same frame as without it, and the
    /// row counted by `reused` copied from the last frame exactly when the change says so.
    static func walk(
        _ changes: [(String, Bool, (inout AppModel) -> Void)], on model: inout AppModel, memo: ViewMemo,
        reused: KeyPath<ViewMemo, Int>
    ) {
        for (what, copied, change) in changes {
            let before = memo[keyPath: reused]
            change(&model)
            let memoized = BatonApp.view(model, memo: memo)
            #expect(memoized.frame == BatonApp.view(model).frame, "after \(what)")
            #expect(memo[keyPath: reused] == before + (copied ? 1 : 0), "after \(what)")
        }
    }

    @Test("The title is the last frame's row until what it shows changes: [+], the position with Alt-C, the width")
    func titleFollowsItsInputs() {
        var model = Fixtures.editor("text")
        let memo = ViewMemo()
        #expect(BatonApp.view(model, memo: memo).frame == BatonApp.view(model).frame)
        let changes: [(String, Bool, (inout AppModel) -> Void)] = [
            ("the first key, which makes it [+]", false, { $0.press(.character("x")) }),
            ("a key", true, { $0.press(.character("y")) }),
            ("Alt-C: the position shown", false, { $0.press(.alt("c")) }),
            ("a key, with the position", false, { $0.press(.character("z")) }),
            ("a narrower screen", false, { BatonApp.update(&$0, .resize(TerminalSize(width: 30, height: 10))) }),
            ("Alt-C: the position hidden", false, { $0.press(.alt("c")) }),
            ("a key again", true, { $0.press(.character("w")) }),
            ("a move", true, { $0.press(.left) }),
        ]
        Self.walk(changes, on: &model, memo: memo, reused: \.titlesReused)
        #expect(BatonApp.view(model, memo: memo).frame.lines()[0].contains("[+]"))
    }

    @Test("The keys' line is the last frame's row while the same keys show at the same width")
    func keysLineFollowsItsInputs() {
        var model = Fixtures.editor("text")
        let memo = ViewMemo()
        #expect(BatonApp.view(model, memo: memo).frame == BatonApp.view(model).frame)
        let changes: [(String, Bool, (inout AppModel) -> Void)] = [
            ("a key", true, { $0.press(.character("x")) }),
            ("a move", true, { $0.press(.left) }),
            ("a narrower screen", false, { BatonApp.update(&$0, .resize(TerminalSize(width: 30, height: 10))) }),
            ("a key at that width", true, { $0.press(.character("y")) }),
            ("the nearby list opened: its own keys", false, { $0.press(.control("n")) }),
            ("the nearby list closed: the editor's keys again", false, { $0.press(.escape) }),
            ("a key again", true, { $0.press(.character("z")) }),
        ]
        Self.walk(changes, on: &model, memo: memo, reused: \.keysReused)
        #expect(BatonApp.view(model, memo: memo).frame.lines().contains { $0.hasPrefix("^S") })
    }

    @Test("A row drawn last frame is copied whole, also when it moved to another row")
    func movedRowIsReused() {
        var model = Fixtures.editor("first\nsecond 中文\nthird")
        let memo = ViewMemo()
        _ = BatonApp.view(model, memo: memo)
        // A new first line: every row below moves down one.
        model.press(.enter)
        let plain = BatonApp.view(model)
        let memoized = BatonApp.view(model, memo: memo)
        #expect(memoized.frame == plain.frame)
        // "first", "second 中文" and "third" each moved down a row and were copied, not drawn.
        #expect(memo.rowsReused == 3)
        #expect(memoized.frame.lines() == [
            " (unnamed) [+]                          ",
            "                                        ",
            "first                                   ",
            "second 中文                             ",
            "third                                   ",
            "                                        ",
            "                                        ",
            "                                        ",
            "^S save  ^O save as  ^Q quit  ^N nearby ",
            " Editor · 2 peers · online              ",
        ])
    }
}
