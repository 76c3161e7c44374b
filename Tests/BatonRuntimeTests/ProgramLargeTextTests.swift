@testable import BatonApp
@testable import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import PropertyList
import TerminalUI
import Testing

/// A buffer over `Program.joinOffMainActorSize`: its text is joined for the saves off the main
/// actor, and a save may publish the editor as of the last join; the newest always follows.
@MainActor
@Suite("Saves of a large buffer")
struct ProgramLargeTextTests {
    /// 1.2 MB of mixed-script lines open in an editor, its first screen shown; and the text.
    static func openBig() async throws -> (TestPeer, String) {
        let line = "Привет, 世界 👋\tline of text\n"
        let text = String(repeating: line, count: 1_200_000 / line.utf8.count)
        let p = TestPeer.start(
            TestPeer.center(InMemoryNetwork(), "alice@a"),
            session: .editor(EditorState(text: text, filePath: nil, fileName: "big.txt")))
        try await p.backend.waitForScreen(containing: "Привет", timeout: .seconds(60))
        return (p, text)
    }

    @Test("Typing into 1.2 MB: each save holds text, cursor and undo history of one editor state, and the last holds the newest")
    func largeBufferSaves() async throws {
        let line = "Привет, 世界 👋\tline of text\n"
        let text = String(repeating: line, count: 1_200_000 / line.utf8.count)
        #expect(text.utf8.count >= Program.joinOffMainActorSize)
        let p = TestPeer.start(
            TestPeer.center(InMemoryNetwork(), "alice@a"),
            session: .editor(EditorState(text: text, filePath: nil, fileName: "big.txt")))
        try await p.backend.waitForScreen(containing: "Привет", timeout: .seconds(60))
        let typed = "typed quickly"
        for (count, character) in typed.enumerated() {
            p.backend.send(.character(character))
            // Each key once the one before it shows: keys closer than a join interval, so saves
            // come while the newest text is not joined.
            try await p.backend.waitForScreen(containing: String(typed.prefix(count + 1)) + "Привет", timeout: .seconds(60))
        }
        let expected = typed + text
        // Whatever a save published, its text and cursor belong together: the cursor is just
        // after the typed letters the text starts with.
        var consistent = true
        let newest = await waitUntil(timeout: .seconds(60)) {
            guard let info = p.program.activity?.userInfo, case .string(let saved)? = info["text"],
                  case .integer(let column)? = info["cursorColumn"] else { return false }
            let prefix = saved.prefix(while: { $0 != "П" })
            if String(prefix).count != column || !typed.hasPrefix(prefix) { consistent = false }
            return saved == expected && column == typed.count
        }
        #expect(newest, "the last save holds the newest text and cursor")
        #expect(consistent, "a save held a text and a cursor of two different states")
        // The undo history that went with it undoes the typing back to the file.
        guard let history = p.program.activity?.userInfo["undoHistory"] else {
            Issue.record("no undo history saved")
            await p.stop()
            return
        }
        let restored = try #require(Session(
            activityType: "dev.baton.editing",
            userInfo: ["text": .string(expected), "cursorLine": 0, "cursorColumn": .integer(typed.count), "undoHistory": history],
            from: "alice@a"))
        guard case .editor(let state) = restored else { Issue.record("not an editor"); await p.stop(); return }
        // A history is taken only when it checks out against the text it came with.
        // Its steps take the first line from the file's to the typed one.
        let firstLine = String(line.dropLast())
        #expect(state.history.undoSteps.first?.removed == [firstLine])
        #expect(state.history.undoSteps.last?.inserted == [typed + firstLine])
        await p.stop()
    }

    @Test("Keys into 1.2 MB hold the save for a pause in typing: the first save after them comes a pause later and holds them all")
    func savesWaitForAPause() async throws {
        let (p, text) = try await Self.openBig()
        // The save of the session as opened, before any key.
        #expect(await waitUntil { p.center.saveCount == 1 })
        let typed = "held"
        let sent = ContinuousClock.now
        p.backend.send(text: typed)
        // The save that holds the keys. (On a loaded machine another save of the text as opened
        // can come before the program has taken the keys; that one is not "after the keys".)
        #expect(await waitUntil { p.program.activity?.userInfo["cursorColumn"] == .integer(typed.count) }, "no save after the keys")
        let waited = ContinuousClock.now - sent
        #expect(waited >= Program.typingPause, "saved \(waited) after the keys")
        #expect(p.center.saveCount >= 2)
        let info = try #require(p.program.activity?.userInfo)
        #expect(info["text"] == .string(typed + text), "the first save after the keys holds them all")
        #expect(info["cursorColumn"] == .integer(typed.count))
        await p.stop()
    }

    @Test("The editor as of the last join, kept for the saves, shares no array with the editor: its next key copies none")
    func joinedSnapshotIsUnshared() async throws {
        let (p, _) = try await Self.openBig()
        p.backend.send(text: "joined")
        try await p.backend.waitForScreen(containing: "joinedПривет", timeout: .seconds(60))
        // The pause after the keys ends the hold; the join after it keeps the editor as it is now.
        let joined = await waitUntil(timeout: .seconds(60)) {
            guard case .editor(let editor) = p.program.model.session, let kept = p.program.joinedEditor else { return false }
            return kept.buffer.version == editor.buffer.version
        }
        #expect(joined, "no join of the typed text")
        guard case .editor(let editor) = p.program.model.session, let kept = p.program.joinedEditor else {
            await p.stop()
            return
        }
        #expect(!kept.buffer.rope.sharesArrays(with: editor.buffer.rope))
        #expect(kept.buffer.isTextKept)
        // The text and cursor (the history's open step may have been sealed by a tick since).
        #expect(kept.buffer == editor.buffer)
        await p.stop()
    }

    @Test("Once the typed text is joined, the editor's blocks are slices of the join: the text as opened is let go")
    func editorHoldsOneCopy() async throws {
        let (p, _) = try await Self.openBig()
        func storage(_ string: String) -> UnsafeRawPointer? {
            var string = string
            return string.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        p.backend.send(text: "one copy")
        try await p.backend.waitForScreen(containing: "one copyПривет", timeout: .seconds(60))
        let recut = await waitUntil(timeout: .seconds(60)) {
            guard case .editor(let editor) = p.program.model.session, editor.buffer.isTextKept else { return false }
            let join = storage(editor.buffer.text)
            return editor.buffer.rope.blocks.allSatisfy { storage($0.text.base) == join }
        }
        #expect(recut, "the editor's blocks are not all slices of its joined text")
        guard case .editor(let editor) = p.program.model.session else { await p.stop(); return }
        #expect(editor.buffer.text.hasPrefix("one copyПривет"))
        #expect(editor.buffer.cursor == TextPosition(line: 0, column: 8))
        await p.stop()
    }
}
