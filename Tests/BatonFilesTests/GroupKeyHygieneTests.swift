import Foundation
import Testing
@testable import HandoffWire
@testable import BatonFiles

/// The key file is treated as ssh treats a private key: only a regular file of this user that
/// no one else may read or change is used, and a refusal says the command that fixes it.
@Suite("The group key file's owner, mode and folder")
struct GroupKeyHygieneTests {
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-keyfile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    @Test("A key file others may read or change is refused with the chmod that fixes it; 0600 and 0400 are used")
    func exposed() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/group.key"
        let key = GroupKey.random()
        try key.write(to: path, replace: false)

        #expect(chmod(path, 0o644) == 0)
        #expect(throws: GroupKey.LoadError.exposed(path: path, mode: 0o644)) { try GroupKey.load(keyFile: path) }
        #expect(GroupKey.LoadError.exposed(path: path, mode: 0o644).description
            == "The group key file \(path) is readable by others (mode 0644); run: chmod 600 '\(path)'")
        #expect(chmod(path, 0o640) == 0)  // the group is others too
        #expect(throws: GroupKey.LoadError.exposed(path: path, mode: 0o640)) { try GroupKey.read(path: path) }
        #expect(chmod(path, 0o620) == 0)
        #expect(throws: GroupKey.LoadError.exposed(path: path, mode: 0o620)) { try GroupKey.read(path: path) }
        #expect(GroupKey.LoadError.exposed(path: path, mode: 0o620).description.contains("is writable by others (mode 0620)"))

        #expect(chmod(path, 0o600) == 0)
        #expect(try GroupKey.load(keyFile: path).key == key)
        #expect(chmod(path, 0o400) == 0)
        #expect(try GroupKey.read(path: path) == key)
    }

    @Test("The default key file is checked too, and the chmod hint quotes a path with a quote in it")
    func exposedDefaultFile() throws {
        let folder = try temporaryFolder() + "/it's here"
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        let env = ["XDG_CONFIG_HOME": folder, "HOME": "/nonexistent"]
        let (key, _) = try GroupKey.load(environment: env)
        let path = folder + "/baton/group.key"
        #expect(chmod(path, 0o604) == 0)
        let refused = #expect(throws: GroupKey.LoadError.self) { try GroupKey.load(environment: env) }
        #expect(refused == .exposed(path: path, mode: 0o604))
        let quoted = "'" + folder.replacingOccurrences(of: "'", with: "'\\''") + "/baton/group.key'"
        #expect(refused?.description.hasSuffix("run: chmod 600 \(quoted)") == true, "\(String(describing: refused))")
        #expect(chmod(path, 0o600) == 0)
        #expect(try GroupKey.load(environment: env).key == key)
    }

    @Test("A key file that belongs to another user is refused with the chown that fixes it (needs root)")
    func otherOwner() throws {
        guard geteuid() == 0 else {
            print("skipping: only root can give a file to another user (running as uid \(geteuid()))")
            try Test.cancel("needs root to chown a file to another user")
        }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/group.key"
        let key = GroupKey.random()
        try key.write(to: path, replace: false)
        let stranger: uid_t = 4242
        #expect(chown(path, stranger, stranger) == 0)
        #expect(throws: GroupKey.LoadError.foreignOwner(path: path, owner: 4242, user: 0, mode: 0o600)) {
            try GroupKey.load(keyFile: path)
        }
        #expect(GroupKey.LoadError.foreignOwner(path: path, owner: 4242, user: 0, mode: 0o600).description
            == "The group key file \(path) belongs to another user (uid 4242), not to you (uid 0, root); run: chown root '\(path)'")
        #expect(GroupKey.LoadError.foreignOwner(path: path, owner: 0, user: 4242, mode: 0o644).description
            == "The group key file \(path) belongs to another user (uid 0, root), not to you (uid 4242); run: sudo chown 4242 '\(path)' && chmod 600 '\(path)'")
        #expect(chown(path, 0, 0) == 0)
        #expect(try GroupKey.read(path: path) == key)

        // Baton's own folder, if another user's, could have the key swapped: writing there is refused.
        let env = ["XDG_CONFIG_HOME": folder, "HOME": "/nonexistent"]
        try FileManager.default.createDirectory(atPath: folder + "/baton", withIntermediateDirectories: true)
        #expect(chown(folder + "/baton", stranger, stranger) == 0)
        let refused = #expect(throws: GroupKey.LoadError.self) { try GroupKey.load(environment: env) }
        #expect(refused == .cannotCreate(
            path: folder + "/baton/group.key", reason: "its folder \(folder)/baton belongs to another user (uid 4242)"))
    }

    @Test("A key file that is not a regular file is refused without blocking")
    func notRegular() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/group.key"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer {
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)  // frees a reader stuck in open, were there one
            if fd >= 0 { close(fd) }
        }
        #expect(throws: GroupKey.LoadError.unreadable(path: fifo, reason: "it is a FIFO, not a regular file")) {
            try GroupKey.read(path: fifo)
        }
    }

    @Test("A relative XDG_CONFIG_HOME is ignored, as the XDG spec says; an absolute one is used")
    func relativeConfigHome() {
        #expect(GroupKey.defaultPath(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/ann"])
            == "/home/ann/.config/baton/group.key")
        #expect(GroupKey.defaultPath(environment: ["XDG_CONFIG_HOME": "./cfg", "HOME": "/home/ann"])
            == "/home/ann/.config/baton/group.key")
        #expect(GroupKey.defaultPath(environment: ["XDG_CONFIG_HOME": "", "HOME": "/home/ann"])
            == "/home/ann/.config/baton/group.key")
        #expect(GroupKey.defaultPath(environment: ["XDG_CONFIG_HOME": "/etc/ann", "HOME": "/home/ann"])
            == "/etc/ann/baton/group.key")
        #expect(GroupKey.defaultFolder(environment: ["XDG_CONFIG_HOME": "cfg", "HOME": "/home/ann"])
            == "/home/ann/.config/baton")
    }

    @Test("Baton's folder is made 0700, and put back to 0700 when a key is read or written there")
    func folderKeptPrivate() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let env = ["XDG_CONFIG_HOME": folder, "HOME": "/nonexistent"]
        let baton = folder + "/baton"
        // Made by someone else's umask: 0755. Creating the key tightens it.
        try FileManager.default.createDirectory(atPath: baton, withIntermediateDirectories: true)
        #expect(chmod(baton, 0o755) == 0)
        let (key, source) = try GroupKey.load(environment: env)
        #expect(source == .created(baton + "/group.key"))
        #expect(mode(baton) == 0o700)
        #expect(mode(baton + "/group.key") == 0o600)
        // Opened up again later: reading the key puts it back.
        #expect(chmod(baton, 0o775) == 0)
        #expect(try GroupKey.load(environment: env).key == key)
        #expect(mode(baton) == 0o700)

        // A folder named with --key-file is the person's own: created 0700 when missing, else left as it is.
        let own = folder + "/mine"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        #expect(chmod(own, 0o755) == 0)
        try key.write(to: own + "/k", replace: true)
        #expect(mode(own) == 0o755)
        #expect(mode(own + "/k") == 0o600)
        try key.write(to: folder + "/new/k", replace: true)
        #expect(mode(folder + "/new") == 0o700)
    }
}
