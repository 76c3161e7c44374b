import Foundation
import Handoff
import Logging
import HandoffWire

/// Appends log lines to a file (`baton --log-file`): stdout and stderr belong to the terminal while the UI runs.
///
/// Each event is one line, written through `PeerText.visible`: whatever a message or its
/// metadata carries (a peer's name, type or activity ID, a newline), the file gets no control,
/// bidi or invisible scalar, and a reader (`less`, `tail -f` on a terminal) nothing to act on.
public struct FileLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let file: FileHandle

    /// Opens (creating) the file for appending; nil when it cannot be opened.
    public init?(label: String, path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        }
        guard let file = FileHandle(forWritingAtPath: path) else { return nil }
        file.seekToEndOfFile()
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
        file.write(Data((Self.line(time: time, level: event.level, label: label, message: "\(event.message)", extra: extra) + "\n").utf8))
    }

    /// One log line, made visible; never holds a line break.
    static func line(time: String, level: Logger.Level, label: String, message: String, extra: String) -> String {
        PeerText.visible("\(time) \(level) \(label): \(message)\(extra)")
    }
}
