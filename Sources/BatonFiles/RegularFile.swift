#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file opened for reading, and nothing else: what is at the path (links followed) is
/// checked before it is opened, opened without blocking, and checked again on the descriptor,
/// so a FIFO, a socket or a device named like the file is refused, and one swapped in between
/// the two checks cannot block the reader either. Reads are bounded: a file over the limit is
/// refused from its size before any byte is read, and never more than limit + 1 bytes are read.
///
/// Baton's one such reader, for the editor's files and for the group key; closed when released.
package final class RegularFile {
    /// Why a file was not opened or read.
    package enum Problem: Error, Equatable, Sendable {
        /// Nothing is at the path (or a link there points at nothing).
        case missing
        /// Something other than a regular file is there: `kind` says what ("a FIFO").
        case notRegular(kind: String)
        /// The file has at least `size` bytes, more than the reader's limit.
        case tooLarge(size: Int)
        /// The system refused: `errno`.
        case system(errno: Int32)

        /// The system's text for a `.system` errno ("Permission denied").
        package static func reason(_ code: Int32) -> String {
            String(cString: strerror(code))
        }
    }

    /// The open descriptor (close-on-exec, non-blocking).
    package let descriptor: Int32
    /// What `fstat` said about the descriptor when it was opened.
    package let status: stat

    /// The file's size when it was opened.
    package var size: Int { Int(status.st_size) }
    /// The user id that owns the file.
    package var owner: uid_t { status.st_uid }
    /// The permission bits (`0o644`).
    package var permissions: mode_t { status.st_mode & 0o7777 }

    /// Opens what is at `path` for reading, following links, when it is a regular file.
    package init(openingForReading path: String) throws(Problem) {
        // Look before opening: opening a device can have effects of its own (a tape rewinds,
        // a terminal becomes the controlling one), and a FIFO's open waits for a writer.
        var before = stat()
        guard stat(path, &before) == 0 else { throw errno == ENOENT ? .missing : .system(errno: errno) }
        if let kind = Self.kind(of: before.st_mode) { throw .notRegular(kind: kind) }
        // Something else may take its place before the open: O_NONBLOCK keeps a FIFO's open and
        // reads from waiting, O_NOCTTY keeps a terminal from becoming ours, and fstat decides.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw errno == ENOENT ? .missing : .system(errno: errno) }
        var after = stat()
        guard fstat(fd, &after) == 0 else {
            let code = errno
            close(fd)
            throw .system(errno: code)
        }
        if let kind = Self.kind(of: after.st_mode) {
            close(fd)
            throw .notRegular(kind: kind)
        }
        descriptor = fd
        status = after
    }

    deinit {
        close(descriptor)
    }

    /// Every byte of the file, when it has at most `limit`. A file whose size is over the limit
    /// is refused before anything is read; one that turns out longer while it is read (it grew,
    /// or it is a file under /proc whose size says 0) is refused after limit + 1 bytes.
    package func readAll(limit: Int) throws(Problem) -> [UInt8] {
        guard size <= limit else { throw .tooLarge(size: size) }
        let wanted = limit + 1  // one more than allowed, to see that there is more
        var bytes = [UInt8](repeating: 0, count: min(wanted, max(size, 4096) + 1))
        var count = 0
        while count < wanted {
            if count == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: min(bytes.count, wanted - bytes.count)))
            }
            let n = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .system(errno: errno) }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { throw .tooLarge(size: count) }
        return Array(bytes[..<count])
    }

    /// What a file of this mode is, as a noun ("a FIFO", "a character device"); nil for a regular file.
    package static func kind(of mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    /// Where `path` leads when every symbolic link on its last component is followed: `path`
    /// itself when it is no link, else the final target, which may not exist (a dangling link).
    /// Relative targets are taken from the link's folder, as the system does. More than 40 links
    /// in a row (a loop) throw ELOOP.
    package static func finalTarget(of path: String) throws(Problem) -> String {
        var current = path
        for _ in 0...40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else { throw .system(errno: errno) }
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else {
                let parent = folder(of: current)
                current = parent == "." ? target : (parent == "/" ? "" : parent) + "/" + target
            }
        }
        throw .system(errno: ELOOP)
    }

    /// The folder `path` is in: "." for a bare name, "/" for a name at the root.
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
