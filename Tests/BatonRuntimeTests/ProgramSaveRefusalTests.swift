import BatonApp
import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing

/// A save the file store refuses, through the whole Program: the person is told why, and the
/// text they typed stays in the editor, unsaved.
@MainActor
@Suite("A refused save", .timeLimit(.minutes(1)))
struct ProgramSaveRefusalTests {
    @Test("Ctrl-S onto a FIFO says what it is, does not block, and keeps the edited text and its unsaved mark")
    func fifo() async throws {
        let folder = NSTemporaryDirectory() + "baton-refused-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        #expect(mkfifo(path, 0o644) == 0)
        defer {
            // Were the Program stuck opening the FIFO, a writer that comes and goes frees it.
            let fd = open(path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }

        let center = TestPeer.center(InMemoryNetwork(), "alice@a")
        let p = TestPeer.start(center, session: .editor(EditorState(text: "", filePath: path)))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        p.backend.send(text: "keep me")
        p.backend.send(.control("s"))
        let said = "Not saved: \(path) is a FIFO; Baton edits regular files only."
        #expect(await waitUntil(timeout: .seconds(60)) { p.program.model.notice?.text == said },
            "the notice is \(String(describing: p.program.model.notice?.text))")
        #expect(p.program.model.notice?.kind == .problem)
        try await p.backend.waitForScreen(containing: "Not saved: ", timeout: .seconds(60))
        guard case .editor(let editor) = p.program.model.session else {
            Issue.record("the session is no longer the editor")
            await p.stop()
            return
        }
        #expect(editor.buffer.text == "keep me")
        #expect(editor.isDirty)
        #expect(editor.filePath == path)
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        await p.stop()
    }
}
