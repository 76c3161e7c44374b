import BatonApp
import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing

/// A file over the state limit through the whole Program: edited and saved here, never published.
@MainActor
@Suite("A session over the state limit")
struct ProgramStateLimitTests {
    @Test("Told at start it is not handed off, the Program publishes nothing, says why, and Ctrl-S still saves")
    func notHandedOff() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-limit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big.log").path
        try Data("log".utf8).write(to: URL(fileURLWithPath: path))

        let center = TestPeer.center(InMemoryNetwork(), "alice@a")
        let p = TestPeer.start(
            center, session: .editor(EditorState(text: "log", filePath: path)),
            opening: [.handoffOff("big.log is 40 MB; Baton hands off files up to 16 MB")])
        try await p.backend.waitForScreen(containing: "⚠ big.log is 40 MB; Baton hands off", timeout: .seconds(60))
        #expect(p.backend.lines.last?.contains("⚠ not handed off") == true)

        p.backend.send(text: "big ")
        p.backend.send(.control("s"))
        // The file on disk differs from the edited text: the editor asks before replacing it.
        try await p.backend.waitForScreen(containing: "Replace file?", timeout: .seconds(60))
        p.backend.send(.character("y"))
        // Waited for by what lasts, not by "Saved …", which shows for 4 s only.
        #expect(await waitUntil { (try? String(contentsOfFile: path, encoding: .utf8)) == "big log" })
        #expect(p.program.activity == nil, "an activity was made for a session that is not handed off")
        #expect(center.lastPublished == nil)
        await p.stop()
    }
}
