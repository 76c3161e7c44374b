import BatonFiles
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("FileLock")
struct FileLockTests {
    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Whether another descriptor can take the lock at once (without waiting).
    func isFree(_ path: String) -> Bool {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    @Test("Held from exclusive(at:) to release(): another descriptor cannot take it meanwhile; the file is made 0600")
    func heldUntilReleased() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/store.lock"
        let lock = try FileLock.exclusive(at: path)
        #expect(!isFree(path), "the lock was not held")
        let mode = (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        lock.release()
        #expect(isFree(path), "the lock was kept after release")
    }

    @Test("A lock file that is a symbolic link, or in a missing folder, is refused with the reason")
    func refusals() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createSymbolicLink(atPath: root + "/link.lock", withDestinationPath: root + "/elsewhere")
        #expect(throws: FileLock.Problem.self) { _ = try FileLock.exclusive(at: root + "/link.lock") }
        #expect(!FileManager.default.fileExists(atPath: root + "/elsewhere"), "the link was followed")
        do {
            _ = try FileLock.exclusive(at: root + "/missing/x.lock")
            Issue.record("a lock in a missing folder was taken")
        } catch {
            #expect(error.opening)
            #expect(error.code == ENOENT)
            #expect(error.description.hasPrefix("cannot open \(root)/missing/x.lock"))
        }
    }
}
