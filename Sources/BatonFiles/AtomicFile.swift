#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a whole file so that a reader, a crash or a full disk never leaves half of it:
/// a temporary file in the same folder, every byte written, the mode set, fsync, then a
/// rename over the path (or, when nothing may be replaced, a hard link at it), then an fsync
/// of the folder so the new name survives a crash too. A failure removes the temporary.
///
/// Baton's one such writer, for the group key and for the editor's saves.
package enum AtomicFile {
    /// Why a file was not written; the path, when there, is the one asked for.
    package enum Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        /// `replace` was false and something is already at `path`; it was left alone.
        case exists(path: String)
        /// No temporary file could be made in `folder` (missing, not writable, out of inodes): `errno`.
        case cannotCreateTemporary(folder: String, errno: Int32)
        /// The bytes did not all reach the disk (a full disk, a quota, an I/O error): `errno`.
        case incompleteWrite(path: String, errno: Int32)
        /// The temporary's mode could not be set: `errno`.
        case cannotSetMode(path: String, errno: Int32)
        /// The finished temporary could not be put at `path` (e.g. a folder is there): `errno`.
        case cannotPlace(path: String, errno: Int32)

        /// The cause in a few words, for messages that name the file themselves:
        /// "it already exists", or the system's text for the errno ("No space left on device").
        package var reason: String {
            switch self {
            case .exists: "it already exists"
            case .cannotCreateTemporary(_, let code), .incompleteWrite(_, let code),
                .cannotSetMode(_, let code), .cannotPlace(_, let code):
                String(cString: strerror(code))
            }
        }

        package var description: String {
            switch self {
            case .exists(let path): "\(path) was not written: it already exists."
            case .cannotCreateTemporary(let folder, _): "Cannot create a temporary file in \(folder): \(reason)."
            case .incompleteWrite(let path, _): "\(path) was not written: \(reason)."
            case .cannotSetMode(let path, _): "\(path) was not written: cannot set its mode: \(reason)."
            case .cannotPlace(let path, _): "\(path) was not written: \(reason)."
            }
        }
    }

    /// The mode a new file gets when the caller names none: rw-r--r--.
    package static let defaultMode: mode_t = 0o644

    /// Writes `bytes` to `path` atomically.
    ///
    /// - Parameters:
    ///   - mode: the file's permissions; nil keeps those of the file being replaced, or gives a
    ///     new file `defaultMode` (0644). The umask does not apply.
    ///   - replace: when false, a file (or anything else) already at `path` is never replaced,
    ///     and `.exists` is thrown; two writers racing for the same new path see one win.
    package static func write(
        _ bytes: [UInt8], to path: String, mode: mode_t? = nil, replace: Bool = true
    ) throws(Error) {
        let folder = folder(of: path)
        var template = Array(((folder == "/" ? "" : folder) + "/.baton-tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .cannotCreateTemporary(folder: folder, errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // no child process inherits a half-written file
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do throws(Error) {
            do throws(Error) {
                try fill(fd, with: bytes, path: path, mode: mode ?? existingMode(of: path) ?? defaultMode)
                close(fd)
            } catch {
                close(fd)
                throw error
            }
            if replace {
                guard rename(temporary, path) == 0 else { throw .cannotPlace(path: path, errno: errno) }
            } else {
                // link(2) never replaces: it fails with EEXIST when anything is at `path`, and
                // otherwise makes the finished file appear there whole.
                guard link(temporary, path) == 0 else {
                    throw errno == EEXIST ? .exists(path: path) : .cannotPlace(path: path, errno: errno)
                }
                unlink(temporary)
            }
        } catch {
            unlink(temporary)
            throw error
        }
        // The rename is done; syncing the folder makes it durable. Failing here cannot undo it.
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            fsync(folderFD)
            close(folderFD)
        }
    }

    /// Writes `bytes` over the existing file at `path`, in place: opened for writing (never
    /// created), truncated, written, synced. Not atomic — a crash midway leaves part of the file —
    /// so only for a file that may be written in a folder that may not, where no temporary file
    /// can be made (nano does the same). The file keeps its inode, owner and mode.
    package static func overwrite(_ bytes: [UInt8], at path: String) throws(Error) {
        let fd = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotPlace(path: path, errno: errno) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
        guard fsync(fd) == 0 else { throw .incompleteWrite(path: path, errno: errno) }
    }

    /// Writes every byte to `fd` (retrying short writes and EINTR), sets its mode, syncs it.
    private static func fill(_ fd: Int32, with bytes: [UInt8], path: String, mode: mode_t) throws(Error) {
        try writeAll(fd, bytes, path: path)
        guard fchmod(fd, mode) == 0 else { throw .cannotSetMode(path: path, errno: errno) }
        guard fsync(fd) == 0 else { throw .incompleteWrite(path: path, errno: errno) }
    }

    /// Writes every byte to `fd`, retrying short writes and EINTR.
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(Error) {
        if let failure = Descriptor.writeAll(fd, bytes) { throw .incompleteWrite(path: path, errno: failure) }
    }

    /// The permission bits of what is at `path` now, or nil when nothing is.
    private static func existingMode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The folder `path` is in: "." for a bare name, "/" for a name at the root.
    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
