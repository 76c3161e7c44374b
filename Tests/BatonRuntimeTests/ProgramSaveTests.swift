import BatonApp
import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing

/// Ctrl-S on the file the editor opened saves without a question, until another program
/// changes the file on disk.
@MainActor
@Suite("Saving the opened file", .timeLimit(.minutes(1)))
struct ProgramSaveTests {
    /// A folder of its own holding notes.txt ("one\n").
    struct Folder {
        let folder = NSTemporaryDirectory() + "baton-save-\(UUID().uuidString)"
        var path: String { folder + "/notes.txt" }
        init() throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "one\n".write(toFile: path, atomically: false, encoding: .utf8)
        }
        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// `path` opened as `baton edit` opens it, in a program whose screen shows it.
    static func editing(_ path: String) async throws -> TestPeer {
        let opened = try #require(try FileStore().open(path: path))
        let p = TestPeer.start(
            TestPeer.center(InMemoryNetwork(), "alice@a"),
            session: .editor(EditorState(text: opened.text, filePath: path, disk: opened.stamp)))
        try await p.backend.waitForScreen(containing: "notes.txt", timeout: .seconds(60))
        return p
    }

    @Test("Ctrl-S, then Ctrl-S again after more typing, asks nothing; after another program wrote the file it asks")
    func quietUntilChangedOnDisk() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let path = folder.path
        let p = try await Self.editing(path)
        p.backend.send(text: "A")
        p.backend.send(.control("s"))
        // Waited for by what lasts, not by "Saved …", which shows for 4 s only.
        #expect(await waitUntil { (try? String(contentsOfFile: path, encoding: .utf8)) == "Aone\n" })
        try await p.backend.waitUntil("the saved, clean title") { $0.lines[0].contains("notes.txt ") && !$0.contains("[+]") }
        #expect(p.program.model.overlay == nil)

        p.backend.send(text: "B")
        p.backend.send(.control("s"))
        #expect(await waitUntil { (try? String(contentsOfFile: path, encoding: .utf8)) == "ABone\n" })
        try await p.backend.waitUntil("the saved, clean title") { $0.lines[0].contains("notes.txt ") && !$0.contains("[+]") }
        #expect(p.program.model.overlay == nil, "the second save asked \(String(describing: p.program.model.overlay))")

        // Another program changes the file; the next Ctrl-S asks, and writes nothing meanwhile.
        try "theirs\n".write(toFile: path, atomically: false, encoding: .utf8)
        p.backend.send(text: "C")
        p.backend.send(.control("s"))
        try await p.backend.waitForScreen(containing: "Changed on disk", timeout: .seconds(60))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs\n")
        // The title shows the file's path (in a temporary folder of its own).
        let lines = p.backend.lines
        #expect(lines.first?.trimmingCharacters(in: .whitespaces).hasSuffix("/notes.txt [+]") == true, "\(lines)")
        #expect(Array(lines.dropFirst()) == [
            "ABCone                                          ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "                                                ",
            "Changed on disk; replace? y/n                   ",
            " Editor · alice@a · 0 peers · memory · online   ",
        ])
        p.backend.send(.character("y"))
        #expect(await waitUntil { (try? String(contentsOfFile: path, encoding: .utf8)) == "ABCone\n" })
        await p.stop()
    }

    @Test("A y typed straight after a quiet Ctrl-S is text, not an answer")
    func yAfterCtrlSIsText() async throws {
        let folder = try Folder()
        defer { folder.remove() }
        let path = folder.path
        let p = try await Self.editing(path)
        p.backend.send(keys: [.character("A"), .control("s"), .character("y")])
        try await p.backend.waitForScreen(containing: "Ayone", timeout: .seconds(60))
        #expect(await waitUntil { (try? String(contentsOfFile: path, encoding: .utf8)) == "Aone\n" })
        #expect(p.program.model.overlay == nil)
        await p.stop()
    }
}
