import BatonApp
import FoundationEssentials
import Glibc
import Handoff
import BatonFiles
import BatonApp

/// Reads and writes the editor's files; writes are atomic (temporary file, fsync, rename).
///
/// Only regular files are edited: a FIFO, a socket, a device or a directory at the path is
/// refused, on opening and on saving, with a message that says what it is. A symbolic link is
/// followed, as editors do: reading reads its target, and saving replaces the target (in the
/// target's folder, keeping its mode) and leaves the link in place. A link that points at
/// nothing is saved by creating its target, as vim does.
///
/// A file its owner may not write (no write bit, or `faccessat` says no to this process) opens
/// read-only, and saving over it asks first (`.readOnly`), even as root, as vim does. A file
/// that may be written in a folder that may not (no temporary file can be made there) is
/// written in place instead: truncated, written and synced, as nano does; that is not atomic,
/// but it is the only way such a file can be saved at all.
public struct FileStore: Sendable {
    /// What a save did.
    public enum Outcome: Equatable, Sendable {
        case saved
        /// The file exists with other contents and the caller did not say to replace it.
        case needsConfirmation
        /// The file is read-only and the caller did not say to replace it; nothing was written.
        case readOnly
        /// The file the caller expected (`expecting`) is there no more as it was: another
        /// program changed it; not replaced.
        case changedOnDisk
    }

    /// A file as the editor opens it.
    public struct Opened: Equatable, Sendable {
        /// The text, with `\n` between lines (a CRLF file's `\r\n` become `\n`).
        public var text: String
        /// How the file's lines end on disk.
        public var lineEnding: LineEnding
        /// Whether this process may not write the file (see `FileStore`).
        public var isReadOnly: Bool
        /// The file as read (size, modification time, digest of its bytes), to tell later
        /// whether another program changed it.
        public var stamp: FileStamp
    }

    /// Why a file could not be read or written.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The largest file the editor opens: 64 MiB. A larger one is refused before a byte of it is
    /// read (the editor keeps every character apart, at about 16 bytes each, so this is already
    /// a gigabyte of memory). Files up to 16 MiB are also handed off; between the two limits a
    /// file is edited here only (`BatonApp.fileTooLargeToHandOff`).
    public static let defaultSizeLimit = 64 * 1024 * 1024

    /// The largest file `read` opens, in bytes.
    public let sizeLimit: Int

    public init(sizeLimit: Int = FileStore.defaultSizeLimit) {
        self.sizeLimit = sizeLimit
    }

    /// The text of a file, or nil when there is none. Refuses anything but a regular file, a
    /// file over `sizeLimit` (from its size, before reading), and text that is not UTF-8.
    public func read(path: String) throws(Failure) -> String? {
        try open(path: path)?.text
    }

    /// The stamp of what is at `path` now (its final target when a link), or nil when nothing
    /// readable is.
    public func stamp(path: String) -> FileStamp? {
        do throws(RegularFile.Problem) {
            let file = try RegularFile(openingForReading: path)
            let bytes = try file.readAll(limit: sizeLimit)
            return Self.stamp(file.status, bytes)
        } catch {
            return nil
        }
    }

    static func stamp(_ status: stat, _ bytes: [UInt8]) -> FileStamp {
        FileStamp(
            size: bytes.count, modifiedSeconds: Int(status.st_mtim.tv_sec),
            modifiedNanoseconds: Int(status.st_mtim.tv_nsec), digest: FileStamp.digest(of: bytes))
    }

    /// A file opened for editing: its text with the line-ending style taken out
    /// (`LineEnding.decode`), and whether it is read-only; nil when there is no file. Refuses
    /// what `read` refuses.
    public func open(path: String) throws(Failure) -> Opened? {
        let bytes: [UInt8]
        let readOnly: Bool
        let status: stat
        do throws(RegularFile.Problem) {
            let file = try RegularFile(openingForReading: path)
            bytes = try file.readAll(limit: sizeLimit)
            status = file.status
            readOnly = Self.isReadOnly(path: path, permissions: file.permissions)
        } catch .missing {
            return nil
        } catch {
            throw failure(error, path: path, doing: "read")
        }
        guard let (text, ending) = LineEnding.decode(validating: bytes) else {
            throw Failure(description: "\(path) is not UTF-8 text; Baton edits UTF-8 text only.")
        }
        return Opened(text: text, lineEnding: ending, isReadOnly: readOnly, stamp: Self.stamp(status, bytes))
    }

    /// Writes `text` to `path` atomically (`AtomicFile`): a replaced file keeps its mode, a
    /// new one gets 0644. Unless `replaceExisting`, an existing file with other contents is
    /// left alone and `.needsConfirmation` returned. When `path` is a symbolic link, its final
    /// target is written (and created when missing); the link stays. Anything at the target
    /// that is not a regular file is refused and left as it was.
    ///
    /// `expecting`: the file as the editor read or last saved it. While the disk still matches
    /// it (size, modification time and digest), the file is the editor's own and is replaced
    /// without asking; when it does not, `.changedOnDisk` is returned and nothing written.
    public func save(
        path: String, text: String, replaceExisting: Bool, expecting: FileStamp? = nil
    ) throws(Failure) -> Outcome {
        let bytes = Array(text.utf8)
        let target: String
        do {
            target = try RegularFile.finalTarget(of: path)
        } catch {
            throw failure(error, path: path, doing: "save")
        }
        var info = stat()
        if lstat(target, &info) == 0, let kind = RegularFile.kind(of: info.st_mode) {
            throw failure(.notRegular(kind: kind), path: path, doing: "save")
        }
        let folder = RegularFile.folder(of: target)
        var folderInfo = stat()
        if stat(folder, &folderInfo) != 0 {
            let reason = errno == ENOENT ? "there is no folder \(folder)" : RegularFile.Problem.reason(errno)
            throw Failure(description: "Cannot save \(path): \(reason).")
        } else if folderInfo.st_mode & S_IFMT != S_IFDIR {
            throw Failure(description: "Cannot save \(path): \(folder) is not a folder.")
        }
        let exists = lstat(target, &info) == 0
        if !replaceExisting, exists, Self.isReadOnly(path: target, permissions: info.st_mode & 0o7777) {
            // Asked about only when writing it anyway can work: the file is replaced by a new one
            // in its folder, which needs that folder to be writable (and, in a sticky folder
            // such as /tmp, the file or the folder to be this user's).
            guard Self.mayReplace(target, info, folder: folder, folderInfo) else {
                throw Failure(description: "Cannot save \(path): it is read-only and not yours to change, and \(folder) may not be written either; save a copy with Ctrl-O.")
            }
            return .readOnly
        }
        if !replaceExisting, try !isAbsentOrHolds(bytes, target: target, path: path) {
            guard let expecting else { return .needsConfirmation }
            if stamp(path: target) != expecting { return .changedOnDisk }
        }
        do {
            try AtomicFile.write(bytes, to: target)
        } catch .cannotCreateTemporary(_, let code) where exists && (code == EACCES || code == EPERM) {
            // The folder may not be written but the file may: write it in place, as nano does.
            do {
                try AtomicFile.overwrite(bytes, at: target)
            } catch {
                throw Failure(description: "Cannot save \(path): \(error.reason).")
            }
        } catch {
            throw Failure(description: "Cannot save \(path): \(error.reason).")
        }
        return .saved
    }

    /// `session` with its save target found on this machine (docs/PROTOCOL.md §11): a continued
    /// text whose sender had it at a relative path (`pathHint`) is saved there when a regular
    /// file is at that path below the current folder; and when that file holds the bytes the
    /// sender's editor read or wrote (`digestHint`), it is taken as the editor's own, so the
    /// first save replaces it without asking. Any other session comes back as it was.
    ///
    /// `folder`: the current folder, which the hint is relative to (tests name another).
    public func placing(_ session: Session, folder: String = ".") -> Session {
        guard case .editor(var state) = session, state.filePath == nil, let hint = state.pathHint else { return session }
        let local = folder == "." ? hint : folder + "/" + hint
        guard let found = stamp(path: local) else { return session }
        state.filePath = local
        state.isReadOnly = isReadOnly(path: local)
        if let digest = state.digestHint, found.digest == digest { state.disk = found }
        return .editor(state)
    }

    /// Whether this process may not write the file at `path` now (see `FileStore`).
    public func isReadOnly(path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return Self.isReadOnly(path: path, permissions: info.st_mode & 0o7777)
    }

    static func isReadOnly(path: String, permissions: mode_t) -> Bool {
        permissions & 0o222 == 0 || faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0
    }

    /// Whether the read-only file `target` can be replaced anyway: a new file made in its
    /// folder and renamed over it (the folder writable and searchable by this process; in a
    /// sticky folder, the file or the folder this user's, or root), or failing that written in
    /// place (the file writable by this process, its mode bits notwithstanding, as for root).
    static func mayReplace(_ target: String, _ info: stat, folder: String, _ folderInfo: stat) -> Bool {
        ReplaceRights(
            user: geteuid(), fileOwner: info.st_uid, folderOwner: folderInfo.st_uid,
            folderIsSticky: folderInfo.st_mode & S_ISVTX != 0,
            folderWritable: faccessat(AT_FDCWD, folder, W_OK | X_OK, AT_EACCESS) == 0,
            fileWritable: faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) == 0
        ).mayReplace
    }

    /// What decides whether a read-only file can be written anyway, as the kernel will judge it.
    struct ReplaceRights: Equatable {
        var user: uid_t
        var fileOwner: uid_t
        var folderOwner: uid_t
        var folderIsSticky: Bool
        /// The folder may be written and searched by this process (a new file made, renamed over).
        var folderWritable: Bool
        /// The file itself may be written by this process, its mode bits notwithstanding (root).
        var fileWritable: Bool

        /// Renamed over from its folder (in a sticky folder only by the file's or the folder's
        /// owner, or root), or else written in place.
        var mayReplace: Bool {
            if folderWritable, !folderIsSticky || user == 0 || fileOwner == user || folderOwner == user { return true }
            return fileWritable
        }
    }

    /// Whether nothing is at `target` or it holds exactly `bytes`; compared without reading a
    /// byte more than `bytes.count` + 1. A file that cannot be read counts as different, so the
    /// person is asked before it is replaced.
    private func isAbsentOrHolds(_ bytes: [UInt8], target: String, path: String) throws(Failure) -> Bool {
        do throws(RegularFile.Problem) {
            let file = try RegularFile(openingForReading: target)
            guard file.size == bytes.count else { return false }
            return try file.readAll(limit: bytes.count) == bytes
        } catch .missing {
            return true
        } catch .notRegular(let kind) {
            throw failure(.notRegular(kind: kind), path: path, doing: "save")
        } catch {
            return false
        }
    }

    /// The message for a file that could not be read or saved, naming the link's target
    /// when `path` is a link: "notes.txt (a link to /dev/zero) is a character device; …".
    private func failure(_ problem: RegularFile.Problem, path: String, doing verb: String) -> Failure {
        switch problem {
        case .notRegular(let kind):
            let target = (try? RegularFile.finalTarget(of: path)) ?? path
            let shown = target == path ? path : "\(path) (a link to \(target))"
            return Failure(description: "\(shown) is \(kind); Baton edits regular files only.")
        case .tooLarge(let size):
            let (sizeText, limitText) = Self.sizes(size, sizeLimit)
            return Failure(description: "\(path) is \(sizeText); Baton opens files up to \(limitText).")
        case .missing:
            return Failure(description: "Cannot \(verb) \(path): \(RegularFile.Problem.reason(ENOENT)).")
        case .system(let code):
            return Failure(description: "Cannot \(verb) \(path): \(RegularFile.Problem.reason(code)).")
        }
    }

    /// Two sizes as people read them ("80 MB", "64 MB"), or in bytes when rounding would make
    /// them look the same ("67,108,865 bytes", "67,108,864 bytes").
    static func sizes(_ size: Int, _ limit: Int) -> (String, String) {
        let (a, b) = (HandoffError.size(size), HandoffError.size(limit))
        guard a == b else { return (a, b) }
        return ("\(grouped(size)) bytes", "\(grouped(limit)) bytes")
    }

    /// 67108864 as "67,108,864".
    private static func grouped(_ value: Int) -> String {
        var digits = Array(String(value))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return String(digits)
    }
}
