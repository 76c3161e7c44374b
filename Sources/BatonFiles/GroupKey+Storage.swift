import FoundationEssentials
import HandoffWire
#if canImport(Glibc)
import Glibc
#endif

/// Where the group key is kept: the key file (mode 0600 in a 0700 folder), `BATON_KEY`, and
/// which comes first. The key itself is `GroupKey` in `HandoffWire`.
extension GroupKey {
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

    /// The default key file: `$XDG_CONFIG_HOME/baton/group.key` or `~/.config/baton/group.key`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        PlainText.path(defaultFolder(environment: environment), "group.key")
    }

    /// Baton's own folder, which holds the default key and is kept at 0700:
    /// `$XDG_CONFIG_HOME/baton`, or `~/.config/baton` when `XDG_CONFIG_HOME` is unset, empty or
    /// relative (the XDG Base Directory spec calls a relative one invalid: it would name a
    /// different folder in every working directory).
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let config: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = xdg
        } else {
            let home = environment["HOME"] ?? PlainText.homeFolder
            config = PlainText.path(home, ".config")
        }
        return PlainText.path(config, "baton")
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
        let folder = defaultFolder(environment: environment)
        let path = PlainText.path(folder, "group.key")
        if let key = try readIfPresent(path: path) {
            _ = try? Self.keepPrivate(folder: folder, for: path)  // reading stays safe without it
            return (key, .file(path))
        }
        let key = GroupKey.random()
        do {
            try key.write(to: path, replace: false, privateFolder: true)
        } catch LoadError.cannotCreate(_, let reason) where reason.contains("exists") {
            // Another process created it first: use theirs.
            return (try read(path: path), .file(path))
        }
        return (key, .created(path))
    }

    /// Reads a key file: a regular file of the effective user that no one else may read or
    /// change, checked on the open descriptor (`fstat`), so the file checked is the file read.
    public static func read(path: String) throws(LoadError) -> GroupKey {
        guard let key = try readIfPresent(path: path) else {
            throw .unreadable(path: path, reason: RegularFile.Problem.reason(ENOENT))
        }
        return key
    }

    /// `read(path:)`, or nil when nothing is at `path` (`group.key.old` of a key never changed).
    public static func readIfPresent(path: String) throws(LoadError) -> GroupKey? {
        let bytes: [UInt8]?
        do throws(PrivateFile.Problem) {
            bytes = try PrivateFile.read(path: path, limit: 4096)  // a key file is 45 bytes; no need to read a big one
        } catch {
            throw loadError(error, path: path)
        }
        guard let bytes else { return nil }
        return try GroupKey(base64: String(decoding: bytes, as: UTF8.self), source: path)
    }

    private static func loadError(_ problem: PrivateFile.Problem, path: String) -> LoadError {
        switch problem {
        case .unreadable(let reason): .unreadable(path: path, reason: reason)
        case .tooLarge: .malformed(source: path, reason: "the file is over 4 KB")
        case .exposed(let mode): .exposed(path: path, mode: mode)
        case .foreignOwner(let owner, let user, let mode): .foreignOwner(path: path, owner: owner, user: user, mode: mode)
        case .exists: .cannotCreate(path: path, reason: "it already exists")
        case .cannotWrite(let reason): .cannotCreate(path: path, reason: reason)
        }
    }

    private static func loadError(_ problem: RegularFile.Problem, path: String) -> LoadError {
        loadError(PrivateFile.problem(problem, limit: 4096), path: path)
    }

    /// Writes the key with mode 0600, atomically: a reader never sees half a key. Without
    /// `replace`, an existing file is left alone and `cannotCreate` says "it already exists"
    /// (two processes creating the default key race, and one wins). A missing folder is made
    /// 0700; Baton's own folder (`defaultFolder()`) is also put back to 0700 when it is not.
    public func write(to path: String, replace: Bool) throws(LoadError) {
        let folder = PlainText.folder(of: path)
        try write(to: path, replace: replace, privateFolder: folder == Self.defaultFolder())
    }

    /// Puts this key at `path` in place of the key file there, keeping that file first as
    /// `path.old` (mode 0600, written atomically, replacing an older `.old`), so that a key
    /// replaced by mistake can be put back. Returns the path of the kept copy, or nil when
    /// there was no file, or it held this same key. A file that cannot be read is left
    /// alone and nothing is written.
    public func replaceKeepingOld(at path: String) throws(LoadError) -> String? {
        let previous: [UInt8]
        do throws(RegularFile.Problem) {
            previous = try RegularFile(openingForReading: path).readAll(limit: 4096)
        } catch {
            if error != .missing { throw Self.loadError(error, path: path) }
            try write(to: path, replace: true)
            return nil
        }
        let old = path + ".old"
        let same = String(decoding: previous, as: UTF8.self).trimmed() == base64
        if !same {
            do {
                try AtomicFile.write(previous, to: old, mode: 0o600, replace: true)
            } catch {
                throw .cannotCreate(path: path, reason: "the key there could not be kept as \(old) (\(error.reason)), so it was left alone")
            }
        }
        try write(to: path, replace: true)
        return same ? nil : old
    }

    /// Puts `current` at `path` and `previous` at `path.old` (docs/PROTOCOL.md, sections 3 and
    /// 17), each written atomically with mode 0600; `.old` first, so that a reader who sees the
    /// new current key also finds the key it replaced. Without `previous`, `.old` is left alone.
    public static func store(current: GroupKey, previous: GroupKey?, at path: String) throws(LoadError) {
        let privateFolder = PlainText.folder(of: path) == defaultFolder()
        if let previous { try previous.write(to: path + ".old", replace: true, privateFolder: privateFolder) }
        try current.write(to: path, replace: true, privateFolder: privateFolder)
    }

    private func write(to path: String, replace: Bool, privateFolder: Bool) throws(LoadError) {
        do throws(PrivateFile.Problem) {
            try PrivateFile.write(Array((base64 + "\n").utf8), to: path, replace: replace, privateFolder: privateFolder)
        } catch {
            throw Self.loadError(error, path: path)
        }
    }

    private static func keepPrivate(folder: String, for path: String) throws(LoadError) {
        do throws(PrivateFile.Problem) {
            try PrivateFile.keepPrivate(folder: folder)
        } catch {
            throw loadError(error, path: path)
        }
    }
}
