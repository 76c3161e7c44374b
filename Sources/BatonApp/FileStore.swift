import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes the editor's files; writes are atomic (temporary file, fsync, rename).
public struct FileStore: Sendable {
    /// What a save did.
    public enum Outcome: Equatable, Sendable {
        case saved
        /// The file exists with other contents and the caller did not say to replace it.
        case needsConfirmation
    }

    /// Why a file could not be read or written.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init() {}

    /// The text of a file, or nil when there is none.
    public func read(path: String) throws(Failure) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let text = String(data: data, encoding: .utf8) else {
                throw Failure(description: "\(path) is not UTF-8 text; Baton edits UTF-8 text only.")
            }
            return text
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "Cannot read \(path): \(Self.reason(error)).")
        }
    }

    /// Writes `text` to `path` atomically. Unless `replaceExisting`, an existing file with
    /// other contents is left alone and `.needsConfirmation` returned.
    public func save(path: String, text: String, replaceExisting: Bool) throws(Failure) -> Outcome {
        let bytes = Array(text.utf8)
        if !replaceExisting, let existing = FileManager.default.contents(atPath: path), Array(existing) != bytes {
            return .needsConfirmation
        }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        var template = Array(((folder as NSString).appendingPathComponent(".baton-save-XXXXXX")).utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure(description: "Cannot save \(path): \(String(cString: strerror(errno))).") }
        let temporary = String(cString: template)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            written += n
        }
        // Keep the mode of the file being replaced; a new file gets the usual 0644.
        let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.uint32Value ?? 0o644
        fchmod(fd, mode_t(mode))
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "Cannot save \(path): \(reason).")
        }
        let dirfd = open(folder, O_RDONLY | O_DIRECTORY)
        if dirfd >= 0 {
            fsync(dirfd)
            close(dirfd)
        }
        return .saved
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
