import FoundationEssentials
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where `baton` logs and from which level: `--log-file` (else `BATON_LOG`) and `--log-level`.
///
/// Both are checked when it is made, so that a mistyped level or a file in a folder that does
/// not exist is refused at start, not silently ignored.
public struct LogSettings: Equatable, Sendable {
    /// The log file; nil for no log.
    public var path: String?
    public var level: Logger.Level

    /// Why the log settings cannot be used; the description says what to do.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(path: String?, level: Logger.Level) {
        self.path = path
        self.level = level
    }

    /// The level names `--log-level` takes, from the most to the least verbose.
    public static let levelNames = Logger.Level.allCases.map(\.rawValue)

    /// Reads the level (case-insensitive) and, when a log file is named, opens it for appending
    /// (creating it) and closes it again, so that one that cannot be written is refused now.
    public init(
        logFile: String?, logLevel: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(Problem) {
        guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
            throw Problem(description:
                "--log-level \(logLevel) is not a log level; use one of \(Self.levelNames.joined(separator: ", ")).")
        }
        self.level = level
        let source: String
        if let logFile {
            (path, source) = (logFile, "--log-file")
        } else if let variable = environment["BATON_LOG"], !variable.isEmpty {
            (path, source) = (variable, "BATON_LOG=")
        } else {
            (path, source) = (nil, "")
        }
        if let path { try Self.checkWritable(path, source: source) }
    }

    /// Opens `path` as the log will (append, create) and says why when that fails.
    static func checkWritable(_ path: String, source: String) throws(Problem) {
        let named = source.hasSuffix("=") ? "\(source)\(path)" : "\(source) \(path)"
        guard !path.isEmpty else { throw Problem(description: "\(named): name a file to log to.") }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder = false
        if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            throw Problem(description:
                "\(named): the folder \(folder) does not exist; create it (mkdir -p '\(folder)') or log to a file in a folder that exists.")
        }
        guard isFolder else {
            throw Problem(description: "\(named): \(folder) is not a folder; log to a file in a folder.")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder {
            throw Problem(description: "\(named) is a folder; name a file in it, e.g. \(path)/baton.log.")
        }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw Problem(description: "\(named) cannot be written (\(reason)); log to a file you can write.")
        }
        close(fd)
    }
}
