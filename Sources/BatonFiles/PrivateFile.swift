import FoundationEssentials
import HandoffWire
#if canImport(Glibc)
import Glibc
#endif

/// A file only its owner may read or change, in a folder only its owner may enter: the group
/// key, the identity and the device list. Read only when it is a regular file of the effective
/// user with no group or other bits (checked on the open descriptor, so the file checked is the
/// file read); written atomically with mode 0600, its folder made 0700.
package enum PrivateFile {
    /// Why such a file could not be read or written.
    package enum Problem: Error, Equatable, Sendable {
        /// It could not be opened or read (it is a FIFO, permission denied, …): `reason` says why.
        case unreadable(reason: String)
        /// It is larger than the reader's limit (in bytes).
        case tooLarge(limit: Int)
        /// Others may read or change it: its permission bits are `mode`.
        case exposed(mode: UInt32)
        /// It belongs to `owner`, not to the effective user `user`; `mode` as above.
        case foreignOwner(owner: UInt32, user: UInt32, mode: UInt32)
        /// `replace` was false and a file is already there.
        case exists
        /// It, or its folder, could not be written: `reason` says why.
        case cannotWrite(reason: String)

        /// The sentence for this problem with the `noun` ("identity file") at `path`, ending in
        /// what fixes it where a command does.
        package func sentence(_ noun: String, path: String) -> String {
            typealias Text = GroupKey.LoadError
            switch self {
            case .unreadable(let reason): return "Cannot read the \(noun) \(path): \(reason)."
            case .tooLarge(let limit): return "The \(noun) \(path) is over \(limit / 1024) KB, too large to be one."
            case .exposed(let mode):
                return "The \(noun) \(path) is \(Text.exposure(mode)) (mode \(Text.octal(mode))); run: chmod 600 \(Text.quoted(path))"
            case .foreignOwner(let owner, let user, let mode):
                return "The \(noun) \(path) belongs to another user (\(Text.name(owner))), not to you (\(Text.name(user))); run: "
                    + (user == 0 ? "" : "sudo ") + "chown \(Text.userName(user) ?? String(user)) \(Text.quoted(path))"
                    + (mode & 0o077 == 0 ? "" : " && chmod 600 \(Text.quoted(path))")
            case .exists: return "Cannot create the \(noun) \(path): it already exists."
            case .cannotWrite(let reason): return "Cannot write the \(noun) \(path): \(reason)."
            }
        }
    }

    /// The bytes of the file at `path`, or nil when nothing is there.
    package static func read(path: String, limit: Int) throws(Problem) -> [UInt8]? {
        let file: RegularFile
        do throws(RegularFile.Problem) {
            file = try RegularFile(openingForReading: path)
        } catch {
            if error == .missing { return nil }
            throw problem(error, limit: limit)
        }
        let user = geteuid()
        if file.owner != user {
            throw .foreignOwner(owner: file.owner, user: user, mode: file.permissions)
        }
        if file.permissions & 0o077 != 0 { throw .exposed(mode: file.permissions) }
        do throws(RegularFile.Problem) {
            return try file.readAll(limit: limit)
        } catch {
            throw problem(error, limit: limit)
        }
    }

    static func problem(_ problem: RegularFile.Problem, limit: Int) -> Problem {
        switch problem {
        case .missing: .unreadable(reason: RegularFile.Problem.reason(ENOENT))
        case .notRegular(let kind): .unreadable(reason: "it is \(kind), not a regular file")
        case .tooLarge: .tooLarge(limit: limit)
        case .system(let code): .unreadable(reason: RegularFile.Problem.reason(code))
        }
    }

    /// Writes `bytes` at `path` with mode 0600, atomically. A missing folder is made 0700; with
    /// `privateFolder` (Baton's own folder) an existing one is also put back to 0700.
    package static func write(_ bytes: [UInt8], to path: String, replace: Bool, privateFolder: Bool) throws(Problem) {
        let folder = RegularFile.folder(of: path)
        try makeFolder(folder, privateFolder: privateFolder)
        do {
            try AtomicFile.write(bytes, to: path, mode: 0o600, replace: replace)
        } catch {
            switch error {
            case .exists: throw .exists
            case .incompleteWrite: throw .cannotWrite(reason: "the write did not complete")
            default: throw .cannotWrite(reason: error.reason)
            }
        }
    }

    /// Makes `folder` (0700) when it is missing; with `privateFolder`, keeps it private.
    package static func makeFolder(_ folder: String, privateFolder: Bool) throws(Problem) {
        if folder != "." {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .cannotWrite(reason: PlainText.reason(error))
            }
        }
        if privateFolder { try keepPrivate(folder: folder) }
    }

    /// Makes `folder` 0700 when it is this user's and has any group or other bit; refuses one
    /// that belongs to someone else, who could swap the files in it.
    package static func keepPrivate(folder: String) throws(Problem) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotWrite(reason: RegularFile.Problem.reason(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .cannotWrite(reason: RegularFile.Problem.reason(errno)) }
        guard info.st_uid == geteuid() else {
            throw .cannotWrite(reason: "its folder \(folder) belongs to another user (uid \(info.st_uid))")
        }
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o700) != 0 {
            throw .cannotWrite(reason: "cannot make its folder \(folder) private: \(RegularFile.Problem.reason(errno))")
        }
    }
}
