import Foundation
import Logging

/// Appends log lines to a file: stdout and stderr belong to the terminal while the UI runs.
struct FileLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    private let label: String
    private let file: FileHandle

    /// Opens (creating) the file for appending; nil when it cannot be opened.
    init?(label: String, path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        }
        guard let file = FileHandle(forWritingAtPath: path) else { return nil }
        file.seekToEndOfFile()
        self.label = label
        self.file = file
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let time = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let extra = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined(separator: " ")
        file.write(Data("\(time) \(event.level) \(label): \(event.message)\(extra)\n".utf8))
    }
}
