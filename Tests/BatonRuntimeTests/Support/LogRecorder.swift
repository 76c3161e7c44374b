import Foundation
import Logging

/// Keeps what is logged through its `logger`, to check that a Program says what it should.
final class LogRecorder: Sendable {
    private let lines = LockedLines()

    /// A logger at trace level whose every message this recorder keeps.
    var logger: Logger {
        Logger(label: "test") { [lines] _ in Handler(lines: lines) }
    }

    /// Every message so far, oldest first, as "level: message".
    var messages: [String] { lines.all }

    private struct Handler: LogHandler {
        let lines: LockedLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.append("\(event.level): \(event.message)")
        }
    }

    private final class LockedLines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        var all: [String] { lock.withLock { lines } }

        func append(_ line: String) { lock.withLock { lines.append(line) } }
    }
}
