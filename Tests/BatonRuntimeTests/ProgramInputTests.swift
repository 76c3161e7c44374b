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
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "notes.txt")))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        let before = p.backend.frameCount
        let typed = "the quick brown fox jumps"
        p.backend.send(text: typed)
        let next = try await p.backend.waitForFrame(after: before, timeout: .seconds(60))
        #expect(next.lines[1] == typed + String(repeating: " ", count: 48 - typed.count),
            "the first frame after the burst shows \(next.lines[1])")
        try await p.backend.waitForScreen(containing: "Ln 1, Col 26", timeout: .seconds(60))
        try p.backend.assertScreen(Self.screen(position: "Ln 1, Col 26", text: [typed]))
        await p.stop()
    }

    @Test("A bracketed paste is inserted whole: q, Ctrl-Q, Ctrl-S and line breaks in it are text")
    func pasteIsText() async throws {
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "notes.txt")))
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

    @Test("A key queued behind the one that opens a question is not its answer: it was typed before the question showed")
    func noAnswerBeforeTheQuestion() async throws {
        let p = TestPeer.start(TestPeer.center(InMemoryNetwork(), "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "notes.txt")))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        p.backend.send(text: "draft")
        try await p.backend.waitForScreen(containing: "draft", timeout: .seconds(60))
        // Ctrl-Q asks (unsaved changes); the n behind it in the same read would quit without saving.
        p.backend.send(keys: [.control("q"), .character("n")])
        try await p.backend.waitForScreen(containing: "Unsaved changes", timeout: .seconds(60))
        p.backend.send(.character("c"))
        try await p.backend.waitUntil("the question gone") { !$0.contains("Unsaved changes") }
        #expect(!p.program.model.isQuitting)
        #expect(Self.editor(p.program)?.buffer.text == "draft")
        #expect(p.program.model.overlay == nil)
        await p.stop()
    }

    static func editor(_ program: Program) -> EditorState? {
        if case .editor(let state) = program.model.session { return state }
        return nil
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
