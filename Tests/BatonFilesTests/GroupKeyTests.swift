import Foundation
import Testing
@testable import HandoffWire
@testable import BatonFiles

@Suite("The group key")
struct GroupKeyTests {
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-key-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("The default file is created on first use with mode 0600, then reused")
    func createdOnFirstUse() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let env = ["XDG_CONFIG_HOME": folder, "HOME": "/nonexistent"]
        let (first, source) = try GroupKey.load(environment: env)
        let path = folder + "/baton/group.key"
        #expect(source == .created(path))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first.base64 + "\n")
        #expect(first.base64.count == 44)
        let (second, again) = try GroupKey.load(environment: env)
        #expect(second == first)
        #expect(again == .file(path))
    }

    @Test("A key file wins over BATON_KEY, which wins over the default file")
    func precedence() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fileKey = GroupKey.random()
        try fileKey.write(to: folder + "/k", replace: false)
        let envKey = GroupKey.random()
        let env = ["BATON_KEY": envKey.base64, "XDG_CONFIG_HOME": folder]
        #expect(try GroupKey.load(keyFile: folder + "/k", environment: env).key == fileKey)
        #expect(try GroupKey.load(environment: env).key == envKey)
        #expect(!FileManager.default.fileExists(atPath: folder + "/baton/group.key"))
    }

    @Test("A malformed key is a clear error that says how to make a good one")
    func malformed() throws {
        #expect(throws: GroupKey.LoadError.malformed(source: "BATON_KEY", reason: "it is not standard base64")) {
            try GroupKey.load(environment: ["BATON_KEY": "not base64!"])
        }
        #expect(throws: GroupKey.LoadError.malformed(source: "BATON_KEY", reason: "it decodes to 3 bytes, not 32")) {
            try GroupKey.load(environment: ["BATON_KEY": "AAAA"])
        }
        let error = GroupKey.LoadError.malformed(source: "/k/group.key", reason: "it decodes to 3 bytes, not 32")
        #expect(error.description.contains("baton key --new"))
        // `baton key --new` writes the file, which BATON_KEY still overrides: the fix is BATON_KEY's.
        let fromEnvironment = GroupKey.LoadError.malformed(source: "BATON_KEY", reason: "it decodes to 3 bytes, not 32")
        #expect(fromEnvironment.description.hasPrefix("BATON_KEY holds no usable group key: it decodes to 3 bytes, not 32."))
        #expect(fromEnvironment.description.contains("unset BATON_KEY"))
        #expect(!fromEnvironment.description.contains("baton key --new"))
        let missing = #expect(throws: GroupKey.LoadError.self) { try GroupKey.load(keyFile: "/nonexistent/key") }
        guard case .unreadable(let path, _)? = missing else {
            Issue.record("expected unreadable")
            return
        }
        #expect(path == "/nonexistent/key")
    }

    @Test("Replacing a key file keeps the previous key as group.key.old, mode 0600; the same key keeps nothing")
    func replaceKeepsOld() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/group.key"
        let first = GroupKey.random()
        #expect(try first.replaceKeepingOld(at: path) == nil, "nothing was there to keep")
        #expect(!FileManager.default.fileExists(atPath: path + ".old"))
        let second = GroupKey.random()
        #expect(try second.replaceKeepingOld(at: path) == path + ".old")
        #expect(try GroupKey.read(path: path) == second)
        #expect(try GroupKey.read(path: path + ".old") == first)
        let mode = try FileManager.default.attributesOfItem(atPath: path + ".old")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try second.replaceKeepingOld(at: path) == nil, "the same key again keeps no copy")
        #expect(try GroupKey.read(path: path + ".old") == first, "the kept key was not overwritten with the same key")
    }
}
