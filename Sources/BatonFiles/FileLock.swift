#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on a lock file beside the file it guards, held from `exclusive(at:)`
/// until `release()` (or the process ends): how two Baton processes of one machine read, merge
/// and write one file without losing each other's writes. The lock file is made 0600 when
/// missing and never followed through a symbolic link; an interrupted wait is taken up again.
public final class FileLock: Sendable {
    /// Why the lock could not be had; the description is the sentence to print.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public let path: String
        public let code: Int32
        public let opening: Bool

        public var description: String {
            opening
                ? "cannot open \(path): \(RegularFile.Problem.reason(code))"
                : "cannot lock \(path): \(RegularFile.Problem.reason(code))"
        }
    }

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Opens (or makes) `path` and waits for the exclusive lock on it.
    public static func exclusive(at path: String) throws(Problem) -> FileLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw Problem(path: path, code: errno, opening: true) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(fd)
                throw Problem(path: path, code: code, opening: false)
            }
        }
        return FileLock(descriptor: fd)
    }

    /// Lets the lock go (closing the descriptor releases it). Call once.
    public func release() {
        close(descriptor)
    }
}
