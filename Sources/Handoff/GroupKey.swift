import Foundation

/// The 32-byte secret that machines which should see each other share.
///
/// Written as standard base64 (44 characters). Found, in order: an explicit key file
/// (`--key-file`), `BATON_KEY`, then `$XDG_CONFIG_HOME/baton/group.key`
/// (default `~/.config/baton/group.key`), which is created with mode 0600 on first use.
public struct GroupKey: Equatable, Sendable {
    public let bytes: [UInt8]

    /// Where a key came from, for messages.
    public enum Source: Equatable, Sendable, CustomStringConvertible {
        case environment
        case file(String)
        case created(String)
        case given

        public var description: String {
            switch self {
            case .environment: "BATON_KEY"
            case .file(let path): path
            case .created(let path): "\(path) (new)"
            case .given: "given"
            }
        }
    }

    /// Why a key could not be had.
    public enum LoadError: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(source: String, reason: String)
        case unreadable(path: String, reason: String)
        case cannotCreate(path: String, reason: String)

        public var description: String {
            switch self {
            case .malformed(let source, let reason):
                "The group key in \(source) is not usable: \(reason). A key is 32 random bytes in standard base64 (44 characters); make one with `baton key --new` or copy another machine's with `baton key --import KEY`."
            case .unreadable(let path, let reason):
                "Cannot read the group key file \(path): \(reason)."
            case .cannotCreate(let path, let reason):
                "Cannot create the group key file \(path): \(reason); set BATON_KEY or pass --key-file."
            }
        }
    }

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// Parses the base64 form; surrounding white space is ignored.
    public init(base64 text: String, source: String = "the key") throws(LoadError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let data = Data(base64Encoded: trimmed) else {
            throw .malformed(source: source, reason: "it is not standard base64")
        }
        guard data.count == 32 else {
            throw .malformed(source: source, reason: "it decodes to \(data.count) bytes, not 32")
        }
        bytes = Array(data)
    }

    /// A fresh random key.
    public static func random() -> GroupKey {
        var generator = SystemRandomNumberGenerator()
        return GroupKey(bytes: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// The 44-character base64 form.
    public var base64: String { Data(bytes).base64EncodedString() }

    /// The default key file: `$XDG_CONFIG_HOME/baton/group.key` or `~/.config/baton/group.key`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let config: String
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty {
            config = xdg
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            config = (home as NSString).appendingPathComponent(".config")
        }
        return ((config as NSString).appendingPathComponent("baton") as NSString).appendingPathComponent("group.key")
    }

    /// Finds the key as docs/PROTOCOL.md orders it, creating the default file on first use.
    public static func load(
        keyFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LoadError) -> (key: GroupKey, source: Source) {
        if let keyFile {
            return (try read(path: keyFile), .file(keyFile))
        }
        if let text = environment["BATON_KEY"], !text.isEmpty {
            return (try GroupKey(base64: text, source: "BATON_KEY"), .environment)
        }
        let path = defaultPath(environment: environment)
        if FileManager.default.fileExists(atPath: path) {
            return (try read(path: path), .file(path))
        }
        let key = GroupKey.random()
        do {
            try key.write(to: path, replace: false)
        } catch LoadError.cannotCreate(_, let reason) where reason.contains("exists") {
            // Another process created it first: use theirs.
            return (try read(path: path), .file(path))
        }
        return (key, .created(path))
    }

    /// Reads a key file.
    public static func read(path: String) throws(LoadError) -> GroupKey {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: Self.reason(error))
        }
        return try GroupKey(base64: text, source: path)
    }

    /// Writes the key with mode 0600 (its folder 0700), atomically: a reader never sees half
    /// a key. Without `replace`, an existing file is left alone and `cannotCreate` says
    /// "it already exists" (two processes creating the default key race, and one wins).
    public func write(to path: String, replace: Bool) throws(LoadError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotCreate(path: path, reason: Self.reason(error))
        }
        do {
            try AtomicFile.write(Array((base64 + "\n").utf8), to: path, mode: 0o600, replace: replace)
        } catch {
            switch error {
            case .incompleteWrite: throw .cannotCreate(path: path, reason: "the write did not complete")
            default: throw .cannotCreate(path: path, reason: error.reason)
            }
        }
    }

    private static func reason(_ error: Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}
