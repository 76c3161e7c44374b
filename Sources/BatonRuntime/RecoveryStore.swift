import BatonApp
import BatonFiles
import FoundationEssentials
import Glibc
import HandoffWire

/// Recovery copies of buffers with unsaved changes, in `$XDG_STATE_HOME/baton/recovery/`
/// (`~/.local/state/baton/recovery` by default): the folder 0700, each copy 0600, written with
/// `AtomicFile`. A copy is named after the file's absolute path (a digest of it, so two files
/// never share one); a buffer with no file yet gets one named after the process. Copies stay
/// on this machine: nothing here is ever published.
///
/// A copy is one line of JSON (`path`, `name`, `savedAt` in seconds since 1970, and `bytes`,
/// the text's length in UTF-8), a line break, then the text's bytes as they are: writing one
/// for 16 MB is a copy of the text, not a JSON escape of every character. A copy written as
/// one JSON object with the text inside (before this format) is still read.
public struct RecoveryStore: Sendable {
    /// One recovery copy.
    public struct Copy: Codable, Equatable, Sendable {
        /// The file's absolute path; nil for a buffer that has no file yet.
        public var path: String?
        /// The name shown for it (the file name, or the continued session's name).
        public var name: String?
        /// When it was written.
        public var savedAt: Date
        /// The unsaved text.
        public var text: String
    }

    /// The folder the copies are in.
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// The default folder from the environment: `$XDG_STATE_HOME/baton/recovery`, else
    /// `$HOME/.local/state/baton/recovery`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> RecoveryStore {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return RecoveryStore(folder: state + "/baton/recovery")
        }
        let home = environment["HOME"] ?? PlainText.homeFolder
        return RecoveryStore(folder: home + "/.local/state/baton/recovery")
    }

    /// `path` made absolute against the current directory, `.` and `..` resolved.
    public static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    /// Where the copy for `path` (absolute) is kept, or for an unnamed buffer of this process.
    public func location(for path: String?) -> String {
        guard let path else { return folder + "/unnamed-\(getpid()).recovery" }
        let digest = String(FileStamp.digest(of: Array(path.utf8)), radix: 16)
        let base = PlainText.lastComponent(of: path).filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }
        return folder + "/\(base.prefix(40))-\(digest).recovery"
    }

    /// Writes the copy (folder 0700 created as needed, file 0600, atomically).
    public func write(_ copy: Copy) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = chmod(folder, 0o700)
        let bytes = try Self.encode(copy)
        do {
            try AtomicFile.write(bytes, to: location(for: copy.path), mode: 0o600)
        } catch {
            throw FileStore.Failure(description: error.description)
        }
    }

    /// The copy for `path` (absolute), if there is one.
    public func find(path: String) -> Copy? {
        read(location(for: path))
    }

    /// Every copy there is, newest first, with where it is kept.
    public func all() -> [(location: String, copy: Copy)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".recovery") }.compactMap { name in
            let location = folder + "/" + name
            return read(location).map { (location, $0) }
        }.sorted { $0.copy.savedAt > $1.copy.savedAt }
    }

    /// Removes the copy for `path` (nil: this process's unnamed buffer); nothing when there is none.
    public func remove(path: String?) {
        _ = unlink(location(for: path))
    }

    private func read(_ location: String) -> Copy? {
        guard let data = FileManager.default.contents(atPath: location) else { return nil }
        return Self.decode(Array(data))
    }

    /// What a copy's first line holds.
    private struct Header: Codable {
        var path: String?
        var name: String?
        var savedAt: Date
        var bytes: Int
    }

    /// The bytes of a copy: its header line, then its text.
    static func encode(_ copy: Copy) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        var text = copy.text
        let header = try encoder.encode(Header(path: copy.path, name: copy.name, savedAt: copy.savedAt, bytes: text.utf8.count))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.count + 1 + text.utf8.count)
        bytes.append(contentsOf: header)
        bytes.append(0x0A)
        text.withUTF8 { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The copy in `bytes`, or nil when they are not one (cut short, not UTF-8, not JSON).
    static func decode(_ bytes: [UInt8]) -> Copy? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let newline = bytes.firstIndex(of: 0x0A) else {
            // The earlier format: one JSON object, the text inside, no line break outside strings.
            return try? decoder.decode(Copy.self, from: Data(bytes))
        }
        guard let header = try? decoder.decode(Header.self, from: Data(bytes[..<newline])),
              header.bytes == bytes.count - newline - 1,
              let text = String(validating: bytes[(newline + 1)...], as: UTF8.self) else { return nil }
        return Copy(path: header.path, name: header.name, savedAt: header.savedAt, text: text)
    }

    /// The question asked before the UI: "Recover unsaved changes from 14:02 (312 bytes more
    /// than the file)? [y/N]".
    public static func question(for copy: Copy, fileText: String?) -> String {
        let format = PlainText.isToday(copy.savedAt) ? "%H:%M" : "%Y-%m-%d %H:%M"
        let difference = copy.text.utf8.count - (fileText?.utf8.count ?? 0)
        let size: String
        if fileText == nil {
            size = "\(copy.text.utf8.count) bytes; the file is not there"
        } else if difference == 0 {
            size = "the same size as the file"
        } else {
            size = "\(abs(difference)) bytes \(difference > 0 ? "more" : "fewer") than the file"
        }
        return "Recover unsaved changes from \(PlainText.time(copy.savedAt, format: format)) (\(size))? [y/N] "
    }
}
