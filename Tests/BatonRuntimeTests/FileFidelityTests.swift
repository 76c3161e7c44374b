import BatonApp
import BatonFiles
@testable import BatonRuntime
import Foundation
import TerminalUI
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Files come back byte for byte: opened, edited once through the app, saved.
@Suite("Files keep their bytes, line endings and permissions")
struct FileFidelityTests {
    let store = FileStore()

    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-fidelity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Opens `path` as `baton edit` does, types `typed` at the start, and saves it as the app
    /// asks (replacing, as after the "replace it?" question). Returns the opened file.
    @discardableResult
    func openEditSave(_ path: String, typing typed: String = "X") throws -> FileStore.Opened {
        let opened = try #require(try store.open(path: path))
        let state = EditorState(
            text: opened.text, filePath: path, lineEnding: opened.lineEnding, isReadOnly: opened.isReadOnly)
        var model = AppModel(
            session: .editor(state), size: TerminalSize(width: 40, height: 8),
            status: StatusInfo(peerName: "alice@laptop", endpoint: "test"), now: Date())
        for character in typed { _ = BatonApp.update(&model, .key(.character(character))) }
        let commands = BatonApp.update(&model, .key(.control("s")))
        guard case .saveFile(let savePath, let text, _, _) = try #require(commands.first) else {
            Issue.record("Ctrl-S gave \(commands)")
            return opened
        }
        #expect(try store.save(path: savePath, text: text, replaceExisting: true) == .saved)
        return opened
    }

    @Test("Open, one edit, save: CRLF, a lone CR, mixed endings, tabs, no final newline, Indic, skin tones, ZWJ")
    func roundTrips() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cases: [(name: String, bytes: String, ending: LineEnding)] = [
            ("crlf", "one\r\ntwo\r\n", .crlf),
            ("crlf-no-final", "one\r\ntwo", .crlf),
            ("lone-cr", "a\rb\nc\r\n", .lf),  // mixed: kept as LF, every CR where it was
            ("mixed", "a\r\nb\nc\r\n", .lf),
            ("tabs", "\tindent\tx\n\t\n", .lf),
            ("no-final-newline", "last line", .lf),
            ("indic", "नमस्ते क्षत्रिय\n", .lf),
            ("skin", "👍🏽 👋🏿\n", .lf),
            ("zwj", "👨‍👩‍👧 👩‍💻\r\n", .crlf),
        ]
        for sample in cases {
            let path = "\(folder)/\(sample.name).txt"
            try Data(sample.bytes.utf8).write(to: URL(fileURLWithPath: path))
            let opened = try openEditSave(path)
            #expect(opened.lineEnding == sample.ending, "\(sample.name)")
            #expect(try bytes(path) == Array(("X" + sample.bytes).utf8), "\(sample.name)")
        }
    }

    @Test("LineEnding: CRLF only when every LF follows a CR; encoding puts the CRs back")
    func lineEndings() {
        func decoded(_ text: String) -> String { let d = LineEnding.decode(Array(text.utf8)); return "\(d.ending):\(d.text)" }
        #expect(decoded("a\r\nb\r\n") == "crlf:a\nb\n")
        #expect(decoded("a\r\nb\n") == "lf:a\r\nb\n")
        #expect(decoded("a\rb") == "lf:a\rb")
        #expect(decoded("a\r\r\n") == "crlf:a\r\n")
        #expect(decoded("") == "lf:")
        // Validating: the same text and style for UTF-8, nil for anything else.
        let crlf = LineEnding.decode(validating: Array("é\r\n中\r\n".utf8))
        #expect(crlf?.text == "é\n中\n" && crlf?.ending == .crlf)
        #expect(LineEnding.decode(validating: Array("a\r\nb\n👋".utf8))?.text == "a\r\nb\n👋")
        #expect(LineEnding.decode(validating: [0x61, 0x0D, 0x0A, 0xC3]) == nil)
        #expect(LineEnding.decode(validating: [0xFF, 0x0A]) == nil)
        #expect(LineEnding.crlf.encode("a\r\n") == "a\r\r\n")
        #expect(LineEnding.lf.encode("a\nb") == "a\nb")
    }

    @Test("A 0444 file opens read-only and a save asks first; after the yes it is written and stays 0444")
    func readOnlyFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/locked.txt"
        try Data("theirs\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o444)
        let opened = try #require(try store.open(path: path))
        #expect(opened.isReadOnly)
        #expect(try store.save(path: path, text: "mine\n", replaceExisting: false) == .readOnly)
        #expect(try bytes(path) == Array("theirs\n".utf8))
        // A writable file is not read-only.
        let other = folder + "/open.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: other))
        #expect(try store.open(path: other)?.isReadOnly == false)
        // The yes: written (as root, or by replacing it through its writable folder), mode kept.
        #expect(try store.save(path: path, text: "mine\n", replaceExisting: true) == .saved)
        #expect(try bytes(path) == Array("mine\n".utf8))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o444)
    }

    @Test("Writing in place keeps the inode, owner and mode, and truncates")
    func overwriteInPlace() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/in-place.txt"
        try Data("a longer original text\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o640)
        var before = stat()
        #expect(stat(path, &before) == 0)
        try AtomicFile.overwrite(Array("short\r\n".utf8), at: path)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(after.st_mode & 0o7777 == 0o640)
        #expect(try bytes(path) == Array("short\r\n".utf8))
    }

    @Test("A writable file in a 0555 folder is saved in place instead of failing on the temporary file")
    func readOnlyFolder() throws {
        let folder = try temporaryFolder()
        defer {
            chmod(folder, 0o755)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let path = folder + "/notes.txt"
        try Data("one\r\ntwo\r\n".utf8).write(to: URL(fileURLWithPath: path))
        var before = stat()
        #expect(stat(path, &before) == 0)
        chmod(folder, 0o555)
        guard geteuid() != 0 else {
            // Root may create files in a 0555 folder, so the temporary file is made and the
            // in-place path is never taken; `overwriteInPlace` covers the writer itself.
            print("FileFidelityTests.readOnlyFolder: running as root, which may write any folder; the in-place fallback cannot be reached here")
            let opened = try openEditSave(path)
            #expect(opened.isReadOnly == false)
            #expect(try bytes(path) == Array("Xone\r\ntwo\r\n".utf8))
            return
        }
        let opened = try openEditSave(path)
        #expect(opened.isReadOnly == false)
        #expect(try bytes(path) == Array("Xone\r\ntwo\r\n".utf8))
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
    }

    @Test("A path whose folder is missing, or is a file, is refused with a message that says so")
    func missingFolder() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: FileStore.Failure(description: "Cannot save \(folder)/drafts/plan.txt: there is no folder \(folder)/drafts.")) {
            try store.save(path: folder + "/drafts/plan.txt", text: "x", replaceExisting: false)
        }
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/file"))
        #expect(throws: FileStore.Failure(description: "Cannot save \(folder)/file/plan.txt: \(folder)/file is not a folder.")) {
            try store.save(path: folder + "/file/plan.txt", text: "x", replaceExisting: false)
        }
        // A relative path works from the current directory.
        let relative = "baton-relative-\(UUID().uuidString).txt"
        defer { unlink(relative) }
        #expect(try store.save(path: relative, text: "rel", replaceExisting: false) == .saved)
        #expect(try bytes(FileManager.default.currentDirectoryPath + "/" + relative) == Array("rel".utf8))
    }
}
