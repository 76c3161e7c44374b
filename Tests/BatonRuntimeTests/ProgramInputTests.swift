import BatonApp
import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing

/// Input that keeps up: what is waiting is applied before one draw, and a bracketed paste is
/// one edit with no key bindings inside it.
@MainActor
@Suite("Input in bursts and pastes", .timeLimit(.minutes(1)))
struct ProgramInputTests {
    @Test("A burst of queued keys is applied whole before one redraw: no frame shows part of it")
    func burstIsOneFrame() async throws {
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(Self.positionShown(EditorState(text: "", filePath: nil, fileName: "notes.txt"))))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        let before = p.backend.frameCount
        let typed = "the quick brown fox jumps"
        p.backend.send(text: typed)
        // The first frame that shows any of the burst shows all of it. (A frame drawn for something
        // else before the burst was taken, a status change on a busy machine, shows none of it.)
        var next = try await p.backend.waitForFrame(after: before, timeout: .seconds(60))
        while next.lines[1].allSatisfy({ $0 == " " }) {
            next = try await p.backend.waitForFrame(after: next.number, timeout: .seconds(60))
        }
        #expect(next.lines[1] == typed + String(repeating: " ", count: 48 - typed.count),
            "the first frame after the burst shows \(next.lines[1])")
        try await p.backend.waitForScreen(containing: "Ln 1, Col 26", timeout: .seconds(60))
        try p.backend.assertScreen(Self.screen(position: "Ln 1, Col 26", text: [typed]))
        await p.stop()
    }

    @Test("A bracketed paste is inserted whole: q, Ctrl-Q, Ctrl-S and line breaks in it are text")
    func pasteIsText() async throws {
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(Self.positionShown(EditorState(text: "", filePath: nil, fileName: "notes.txt"))))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        let versionBefore = try #require(Self.editor(p.program)).buffer.version
        p.backend.send(paste: "quit q\u{11}\u{13}now\r\nsecond\rthird")
        try await p.backend.waitForScreen(containing: "third", timeout: .seconds(60))
        let editor = try #require(Self.editor(p.program))
        #expect(editor.buffer.text == "quit q\u{11}\u{13}now\nsecond\nthird")
        #expect(editor.buffer.cursor == TextPosition(line: 2, column: 5))
        #expect(editor.buffer.version != versionBefore)
        #expect(!p.program.model.isQuitting)
        #expect(p.program.model.overlay == nil, "a control character in the paste opened \(String(describing: p.program.model.overlay))")
        try p.backend.assertScreen(Self.screen(
            position: "Ln 3, Col 6", text: ["quit q\u{2411}\u{2413}now", "second", "third"]))
        await p.stop()
    }

    @Test("A key in the same burst as the one that opens a question answers it: nothing is typed into the text")
    func answerInTheSameBurst() async throws {
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "notes.txt")))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        p.backend.send(text: "draft")
        try await p.backend.waitForScreen(containing: "draft", timeout: .seconds(60))
        // Ctrl-Q asks (unsaved changes); the c behind it in the same read cancels the question.
        p.backend.send(keys: [.control("q"), .character("c")])
        try await p.backend.waitUntil("the question answered") { !$0.contains("Unsaved changes") && $0.contains("draft") }
        #expect(!p.program.model.isQuitting)
        #expect(Self.editor(p.program)?.buffer.text == "draft")
        #expect(p.program.model.overlay == nil)
        // And an n in the same burst quits without saving, as it would typed a second later.
        p.backend.send(keys: [.control("q"), .character("n")])
        #expect(await waitUntil(timeout: .seconds(60)) { p.program.model.isQuitting })
        await p.stop()
    }

    @Test("Ctrl-S and y in one burst on a read-only file: the y answers the question the save asks, and the file is written")
    func saveAnswerInTheSameBurst() async throws {
        let folder = NSTemporaryDirectory() + "baton-burst-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/locked.txt"
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
        let opened = try #require(try FileStore().open(path: path))
        #expect(opened.isReadOnly)
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(EditorState(
            text: opened.text, filePath: path, isReadOnly: true, disk: opened.stamp)))
        try await p.backend.waitForScreen(containing: "locked.txt", timeout: .seconds(60))
        p.backend.send(text: "new ")
        try await p.backend.waitForScreen(containing: "new old", timeout: .seconds(60))
        p.backend.send(keys: [.control("s"), .character("y"), .character("!")])
        // Waited for by what lasts, not by "Saved …", which shows for 4 s only.
        #expect(await waitUntil { (try? String(contentsOfFile: path, encoding: .utf8)) == "new old\n" })
        // The y was the answer; the ! after it is text again, typed once the save was done.
        try await p.backend.waitForScreen(containing: "new !old", timeout: .seconds(60))
        #expect(Self.editor(p.program)?.buffer.text == "new !old\n")
        #expect(p.program.model.overlay == nil)
        await p.stop()
    }

    static func editor(_ program: Program) -> EditorState? {
        if case .editor(let state) = program.model.session { return state }
        return nil
    }

    /// `state` with the cursor's position in its title (Alt-C): these tests wait for it.
    static func positionShown(_ state: EditorState) -> EditorState {
        var shown = state
        shown.display.constantShow = true
        return shown
    }

    /// The whole 48×14 screen of an edited notes.txt whose cursor is at `position`, showing `text`.
    static func screen(position: String, text: [String]) -> [String] {
        let width = 48
        func padded(_ row: String) -> String { row + String(repeating: " ", count: max(0, width - row.count)) }
        let left = " notes.txt [+]"
        let right = position + " "
        var rows = [left + String(repeating: " ", count: width - left.count - right.count) + right]
        rows += text.map(padded)
        rows += Array(repeating: padded(""), count: 12 - rows.count)
        rows.append(padded("^S save · ^O save as · ^Q quit · ^N nearby"))
        rows.append(padded(" Editor · alice@a · 0 peers · memory · online"))
        return rows
    }
}
