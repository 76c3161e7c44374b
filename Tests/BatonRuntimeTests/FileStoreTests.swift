import BatonApp
@testable import BatonRuntime
import Foundation
import Testing

@Suite("The editor's files")
struct FileStoreTests {
    let store = FileStore()

    /// A new empty folder, removed by the caller.
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    @Test("Write it anyway is offered only when it can work: a folder one may write (sticky: one's own file or folder), or a file one may write")
    func replaceRights() {
        let me: uid_t = 1000
        let other: uid_t = 1001
        func rights(owner: uid_t = 1000, folderOwner: uid_t = 1000, sticky: Bool = false, folder: Bool = true, file: Bool = false)
            -> FileStore.ReplaceRights {
            FileStore.ReplaceRights(
                user: me, fileOwner: owner, folderOwner: folderOwner, folderIsSticky: sticky, folderWritable: folder, fileWritable: file)
        }
        #expect(rights().mayReplace, "one's own read-only file in one's own folder")
        #expect(rights(owner: other).mayReplace, "another's file in a folder one may write: renamed over, as vim does")
        #expect(!rights(owner: other, folderOwner: 0, folder: false).mayReplace, "/etc/hosts as a user: neither folder nor file")
        #expect(!rights(owner: other, folderOwner: 0, sticky: true).mayReplace, "another's file in /tmp")
        #expect(rights(owner: me, folderOwner: 0, sticky: true).mayReplace, "one's own file in /tmp")
        #expect(rights(owner: 0, folderOwner: 0, folder: false, file: true).mayReplace, "a file one may write in a folder one may not")
        #expect(FileStore.ReplaceRights(
            user: 0, fileOwner: other, folderOwner: other, folderIsSticky: true, folderWritable: true, fileWritable: true).mayReplace,
            "root")
    }

    @Test("A continued text is saved to its relative path when that file is here, quietly while its bytes are the sender's; else to its name, asking")
    func placingAContinuedText() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/proj/src", withIntermediateDirectories: true)
        try "int main;\n".write(toFile: folder + "/proj/src/main.c", atomically: false, encoding: .utf8)
        let original = try #require(try store.open(path: folder + "/proj/src/main.c"))
        // What the sender publishes, as a receiver reads it.
        let sent = Session.editor(EditorState(text: "int main(void);\n", filePath: "proj/src/main.c", disk: original.stamp))
        let received = try #require(Session(activityType: Session.editingActivityType, userInfo: sent.userInfo, from: "bob@desk"))

        let placed = try #require(store.placing(received, folder: folder).editorState)
        #expect(placed.filePath == folder + "/proj/src/main.c")
        #expect(placed.disk == original.stamp, "the unchanged file is not taken as the editor's own")
        #expect(try store.save(path: try #require(placed.savePath), text: "int main(void);\n", replaceExisting: false, expecting: placed.disk) == .saved)

        // Changed since the sender read it: the path is kept, the save asks.
        try "changed\n".write(toFile: folder + "/proj/src/main.c", atomically: false, encoding: .utf8)
        let changed = try #require(store.placing(received, folder: folder).editorState)
        #expect(changed.filePath == folder + "/proj/src/main.c")
        #expect(changed.disk == nil)
        #expect(try store.save(path: folder + "/proj/src/main.c", text: "x\n", replaceExisting: false, expecting: changed.disk) == .needsConfirmation)

        // Not here: the name in the current folder, as before.
        let elsewhere = try #require(store.placing(received, folder: folder + "/proj").editorState)
        #expect(elsewhere.filePath == nil)
        #expect(elsewhere.savePath == "main.c")
    }

    @Test("A new file is written with mode 0644 and read back; a missing one reads as nil")
    func newFile() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        #expect(try store.read(path: path) == nil)
        #expect(try store.save(path: path, text: "héllo 你好\n", replaceExisting: false) == .saved)
        #expect(try store.read(path: path) == "héllo 你好\n")
        #expect(try mode(path) == 0o644)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
    }

    @Test("Another file at the path is left alone unless replacing is confirmed; replacing keeps its mode")
    func replacing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/notes.txt"
        try "theirs".write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(try store.save(path: path, text: "mine", replaceExisting: false) == .needsConfirmation)
        #expect(try store.read(path: path) == "theirs")
        #expect(try store.save(path: path, text: "mine", replaceExisting: true) == .saved)
        #expect(try store.read(path: path) == "mine")
        #expect(try mode(path) == 0o600)
        // The same contents need no confirmation.
        #expect(try store.save(path: path, text: "mine", replaceExisting: false) == .saved)
    }

    @Test("A save that cannot be made says why and leaves no temporary file")
    func failures() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: FileStore.Failure(description: "Cannot save \(folder)/missing/notes.txt: there is no folder \(folder)/missing.")) {
            try store.save(path: folder + "/missing/notes.txt", text: "x", replaceExisting: true)
        }
        // A folder with something in it is where the file would go: it is no file to replace.
        try FileManager.default.createDirectory(atPath: folder + "/notes.txt/inside", withIntermediateDirectories: true)
        #expect(throws: FileStore.Failure(description: "\(folder)/notes.txt is a directory; Baton edits regular files only.")) {
            try store.save(path: folder + "/notes.txt", text: "x", replaceExisting: true)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["notes.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/notes.txt") == ["inside"])
    }

    @Test("Text that is not UTF-8 is refused on reading")
    func notUTF8() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/latin1.txt"
        try Data([0x63, 0x61, 0x66, 0xE9]).write(to: URL(fileURLWithPath: path))
        #expect(throws: FileStore.Failure(description: "\(path) is not UTF-8 text; Baton edits UTF-8 text only.")) {
            try store.read(path: path)
        }
    }
}
