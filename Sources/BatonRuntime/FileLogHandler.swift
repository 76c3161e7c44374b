import BatonFiles
import FoundationEssentials
import Glibc
import Handoff
import Logging
import HandoffWire

/// Appends log lines to a file (`baton --log-file`): stdout and stderr belong to the terminal while the UI runs.
///
/// Each event is one line, its time, then the process's id (a shell session's keeper and its
/// terminal may share one file), the level and the label; written through `PeerText.visible`: whatever a message or its
/// metadata carries (a peer's name, type or activity ID, a newline), the file gets no control,
/// bidi or invisible scalar, and a reader (`less`, `tail -f` on a terminal) nothing to act on.
public struct FileLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let file: LogFile

    /// Opens (creating) the file for appending; nil when it cannot be opened.
    public init?(label: String, path: String) {
        guard let file = LogFile(path: path) else { return nil }
        self.label = label
        self.file = file
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let time = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let extra = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        Descriptor.write(Self.line(time: "\(time) [\(getpid())]", level: event.level, label: label, message: "\(event.message)", extra: extra) + "\n", to: file.descriptor)
    }

    /// One log line, made visible; never holds a line break.
    static func line(time: String, level: Logger.Level, label: String, message: String, extra: String) -> String {
        PeerText.visible("\(time) \(level) \(label): \(message)\(extra)")
    }
}

/// The log file, open for appending (each line one write at its end) until the last handler
/// that shares it is gone.
private final class LogFile: Sendable {
    let descriptor: Int32

    init?(path: String) {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }
}
