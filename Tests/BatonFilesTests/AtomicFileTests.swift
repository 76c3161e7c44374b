import Foundation
import Testing
@testable import HandoffWire
@testable import BatonFiles

@Suite("Atomic file writes")
struct AtomicFileTests {
    /// A new empty folder, removed by the caller.
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func mode(_ path: String) throws -> Int {
        try #require((FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue)
    }

    func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map(Array.init)
    }

    @Test("Writes every byte; a new file gets 0644, a named mode is kept exactly")
    func writes() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try AtomicFile.write(bytes, to: folder + "/big")
        #expect(contents(folder + "/big") == bytes)
        #expect(try mode(folder + "/big") == 0o644)
        try AtomicFile.write([1], to: folder + "/secret", mode: 0o600)
        #expect(try mode(folder + "/secret") == 0o600)
        try AtomicFile.write([], to: folder + "/empty")
        #expect(contents(folder + "/empty") == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["big", "empty", "secret"])
    }

    @Test("Replacing keeps the replaced file's mode unless one is named")
    func keepsMode() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/f"
        try AtomicFile.write(Array("one".utf8), to: path, mode: 0o640)
        try AtomicFile.write(Array("two".utf8), to: path)
        #expect(contents(path) == Array("two".utf8))
        #expect(try mode(path) == 0o640)
        try AtomicFile.write(Array("three".utf8), to: path, mode: 0o600)
        #expect(try mode(path) == 0o600)
    }

    @Test("Without replace, an existing file is left as it was, and no temporary stays behind")
    func noReplace() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/f"
        try AtomicFile.write(Array("first".utf8), to: path, mode: 0o600, replace: false)
        #expect(contents(path) == Array("first".utf8))
        #expect(try mode(path) == 0o600)
        #expect(throws: AtomicFile.Error.exists(path: path)) {
            try AtomicFile.write(Array("second".utf8), to: path, replace: false)
        }
        #expect(contents(path) == Array("first".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["f"])
        #expect(AtomicFile.Error.exists(path: path).reason == "it already exists")
    }

    @Test("A failure leaves no temporary file: a folder in the way, or no folder at all")
    func failures() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // rename(2) cannot put a file over a folder that has something in it.
        try FileManager.default.createDirectory(atPath: folder + "/f/inside", withIntermediateDirectories: true)
        let placed = #expect(throws: AtomicFile.Error.self) { try AtomicFile.write([1, 2, 3], to: folder + "/f") }
        guard case .cannotPlace(let path, _)? = placed else {
            Issue.record("expected cannotPlace, got \(String(describing: placed))")
            return
        }
        #expect(path == folder + "/f")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["f"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/f") == ["inside"])

        let missing = folder + "/nowhere"
        #expect(throws: AtomicFile.Error.cannotCreateTemporary(folder: missing, errno: ENOENT)) {
            try AtomicFile.write([1], to: missing + "/f")
        }
        #expect(AtomicFile.Error.cannotCreateTemporary(folder: missing, errno: ENOENT).reason == "No such file or directory")
    }

    @Test("GroupKey: created 0600; not replaced without replace; replaced atomically with it")
    func groupKey() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/baton/group.key"
        let first = GroupKey.random()
        try first.write(to: path, replace: false)
        #expect(try mode(path) == 0o600)
        #expect(try mode(folder + "/baton") == 0o700)
        #expect(try GroupKey.read(path: path) == first)

        let second = GroupKey.random()
        #expect(throws: GroupKey.LoadError.cannotCreate(path: path, reason: "it already exists")) {
            try second.write(to: path, replace: false)
        }
        #expect(try GroupKey.read(path: path) == first)

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        try second.write(to: path, replace: true)
        #expect(try GroupKey.read(path: path) == second)
        #expect(try mode(path) == 0o600, "a key file is always 0600, whatever the old one was")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/baton") == ["group.key"])
    }
}
