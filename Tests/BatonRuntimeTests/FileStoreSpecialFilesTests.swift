@testable import BatonRuntime
import Foundation
import HandoffTesting
import Testing
import BatonFiles

/// Links, FIFOs, sockets, devices and files too large to open: what the editor reads and
/// saves when the path is not a plain regular file. Every call that could block runs on a
/// thread of its own and must return within a deadline.
@MainActor
@Suite("The editor's files: links, special files, size", .timeLimit(.minutes(1)))
struct FileStoreSpecialFilesTests {
    let store = FileStore()

    /// A new empty folder, removed by the caller.
    func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "baton-special-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// What `lstat` says: the file type bits and the permission bits.
    func linkStatus(_ path: String) -> (type: mode_t, permissions: mode_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777)
    }

    func link(_ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// `work` on a thread of its own; its result, or nil when it has not returned by `timeout`.
    func finishes<T: Sendable>(within timeout: Duration = .seconds(10), _ work: @escaping @Sendable () -> T) async -> T? {
        let result = ResultBox<T>()
        Thread.detachNewThread { result.set(work()) }
        guard await waitUntil(timeout: timeout, { result.get() != nil }) else { return nil }
        return result.get()
    }

    /// A reader stuck opening `fifo` (a failed test) gets a writer, and then the end of the file.
    func release(_ fifo: String) {
        let fd = open(fifo, O_WRONLY | O_NONBLOCK)
        if fd >= 0 { close(fd) }
    }

    func read(_ path: String, with store: FileStore = FileStore()) async -> Result<String?, FileStore.Failure>? {
        await finishes { Result { () throws(FileStore.Failure) in try store.read(path: path) } }
    }

    func save(_ path: String, _ text: String, replace: Bool) async -> Result<FileStore.Outcome, FileStore.Failure>? {
        let store = store
        return await finishes { Result { () throws(FileStore.Failure) in try store.save(path: path, text: text, replaceExisting: replace) } }
    }

    // MARK: Links

    @Test("Saving over a link writes its target in place: the link stays, the target keeps its mode")
    func saveThroughLink() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        let target = folder + "/real/notes.txt"
        try "theirs".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(chmod(target, 0o640) == 0)
        try link(folder + "/notes.txt", to: "real/notes.txt")  // relative, as `ln -s` makes them
        try link(folder + "/again.txt", to: folder + "/notes.txt")  // a link to the link

        #expect(try store.read(path: folder + "/again.txt") == "theirs")
        #expect(await save(folder + "/again.txt", "mine", replace: false) == .success(.needsConfirmation))
        #expect(contents(target) == "theirs")
        #expect(await save(folder + "/again.txt", "mine", replace: true) == .success(.saved))
        #expect(contents(target) == "mine")
        #expect(linkStatus(target)?.type == S_IFREG)
        #expect(linkStatus(target)?.permissions == 0o640, "the target's mode, not the link's 0777")
        #expect(linkStatus(folder + "/notes.txt")?.type == S_IFLNK, "the link was replaced by a file")
        #expect(linkStatus(folder + "/again.txt")?.type == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/notes.txt") == "real/notes.txt")
        // The temporary was made beside the target and renamed over it: nothing else is left.
        #expect(try entries(folder) == ["again.txt", "notes.txt", "real"])
        #expect(try entries(folder + "/real") == ["notes.txt"])
        // The same text again needs no confirmation, through the link too.
        #expect(await save(folder + "/notes.txt", "mine", replace: false) == .success(.saved))
    }

    @Test("A link to nothing reads as a new file; saving creates its target, as vim does, and keeps the link")
    func danglingLink() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/real", withIntermediateDirectories: true)
        try link(folder + "/notes.txt", to: "real/new.txt")
        #expect(try store.read(path: folder + "/notes.txt") == nil)
        #expect(await save(folder + "/notes.txt", "first", replace: false) == .success(.saved))
        #expect(contents(folder + "/real/new.txt") == "first")
        #expect(linkStatus(folder + "/real/new.txt")?.permissions == 0o644)
        #expect(linkStatus(folder + "/notes.txt")?.type == S_IFLNK)

        // A link into a folder that does not exist cannot be saved, and says why.
        try link(folder + "/lost.txt", to: "missing/new.txt")
        #expect(await save(folder + "/lost.txt", "x", replace: false)
            == .failure(FileStore.Failure(description: "Cannot save \(folder)/lost.txt: there is no folder \(folder)/missing.")))
        #expect(linkStatus(folder + "/lost.txt")?.type == S_IFLNK)
        #expect(try entries(folder) == ["lost.txt", "notes.txt", "real"])
    }

    @Test("Links in a loop are refused on reading and saving")
    func linkLoop() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try link(folder + "/a", to: "b")
        try link(folder + "/b", to: "a")
        let loop = "Too many levels of symbolic links"
        #expect(await read(folder + "/a") == .failure(FileStore.Failure(description: "Cannot read \(folder)/a: \(loop).")))
        #expect(await save(folder + "/a", "x", replace: true)
            == .failure(FileStore.Failure(description: "Cannot save \(folder)/a: \(loop).")))
        #expect(try entries(folder) == ["a", "b"])
    }

    // MARK: Special files

    @Test("A FIFO is refused at once on reading and saving, itself or through a link, and stays a FIFO")
    func fifo() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/notes.txt"
        #expect(mkfifo(fifo, 0o644) == 0)
        defer { release(fifo) }
        try link(folder + "/link.txt", to: "notes.txt")
        let refused = FileStore.Failure(description: "\(fifo) is a FIFO; Baton edits regular files only.")
        let refusedLink = FileStore.Failure(
            description: "\(folder)/link.txt (a link to \(folder)/notes.txt) is a FIFO; Baton edits regular files only.")

        #expect(await read(fifo) == .failure(refused), "reading a FIFO blocked or was not refused")
        #expect(await read(folder + "/link.txt") == .failure(refusedLink))
        #expect(await save(fifo, "x", replace: false) == .failure(refused), "comparing with a FIFO blocked")
        #expect(await save(fifo, "x", replace: true) == .failure(refused))
        #expect(await save(folder + "/link.txt", "x", replace: true) == .failure(refusedLink))
        #expect(linkStatus(fifo)?.type == S_IFIFO)
        #expect(try entries(folder) == ["link.txt", "notes.txt"])
    }

    @Test("A character device is refused: /dev/null itself, or a link to it named like the file")
    func characterDevice() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try link(folder + "/notes.txt", to: "/dev/null")
        #expect(await read("/dev/null")
            == .failure(FileStore.Failure(description: "/dev/null is a character device; Baton edits regular files only.")))
        let refused = FileStore.Failure(
            description: "\(folder)/notes.txt (a link to /dev/null) is a character device; Baton edits regular files only.")
        #expect(await read(folder + "/notes.txt") == .failure(refused))
        #expect(await save(folder + "/notes.txt", "x", replace: true) == .failure(refused))
        #expect(linkStatus("/dev/null")?.type == S_IFCHR)
        #expect(linkStatus(folder + "/notes.txt")?.type == S_IFLNK)
    }

    @Test("A socket is refused on reading and saving")
    func socketFile() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/s"
        let fd = try #require(Self.listeningSocket(at: path))
        defer { close(fd) }
        let refused = FileStore.Failure(description: "\(path) is a socket; Baton edits regular files only.")
        #expect(await read(path) == .failure(refused))
        #expect(await save(path, "x", replace: false) == .failure(refused))
        #expect(linkStatus(path)?.type == S_IFSOCK)
    }

    @Test("A folder is refused on reading")
    func folderRead() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(await read(folder)
            == .failure(FileStore.Failure(description: "\(folder) is a directory; Baton edits regular files only.")))
    }

    // MARK: Size

    @Test("A file over the open limit is refused from its size, before a byte of it is read")
    func oversize() async throws {
        #expect(FileStore.defaultSizeLimit == 64 * 1024 * 1024)
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Sparse: 200 MiB that take no disk. Were it read, the message would say 64 MiB + 1 byte.
        let big = folder + "/big.log"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 200 * 1024 * 1024) == 0)
        try link(folder + "/notes.txt", to: "big.log")
        let refused = "is 200 MB; Baton opens files up to 64 MB."
        #expect(await read(big) == .failure(FileStore.Failure(description: "\(big) \(refused)")))
        #expect(await read(folder + "/notes.txt") == .failure(FileStore.Failure(description: "\(folder)/notes.txt \(refused)")))

        // At the limit it opens; one byte over it does not, and the sizes are told apart.
        let small = FileStore(sizeLimit: 10)
        try "0123456789".write(toFile: folder + "/ten", atomically: false, encoding: .utf8)
        try "0123456789A".write(toFile: folder + "/eleven", atomically: false, encoding: .utf8)
        #expect(try small.read(path: folder + "/ten") == "0123456789")
        #expect(throws: FileStore.Failure(description: "\(folder)/eleven is 11 bytes; Baton opens files up to 10 bytes.")) {
            try small.read(path: folder + "/eleven")
        }
        let nearLimit = FileStore.sizes(64 * 1024 * 1024 + 1, 64 * 1024 * 1024)
        #expect(nearLimit == ("67,108,865 bytes", "67,108,864 bytes"))
    }

    @Test("A file whose size says 0 but holds more is read up to the limit plus one byte, then refused")
    func sizeThatLies() async {
        // Files under /proc are regular and report size 0.
        let path = "/proc/self/maps"
        #expect(await read(path, with: FileStore(sizeLimit: 10))
            == .failure(FileStore.Failure(description: "\(path) is 11 bytes; Baton opens files up to 10 bytes.")))
    }

    /// A Unix socket bound at `path` (left listening so it stays a socket), or nil.
    static func listeningSocket(at path: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 1) == 0 else {
            close(fd)
            return nil
        }
        return fd
    }
}

/// A value one thread sets and another polls.
private final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?

    func set(_ value: T) { lock.withLock { self.value = value } }
    func get() -> T? { lock.withLock { value } }
}
