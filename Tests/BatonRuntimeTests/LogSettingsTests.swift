import BatonRuntime
import Foundation
import Logging
import Testing

@Suite("--log-level and --log-file")
struct LogSettingsTests {
    @Test("A level that does not exist is refused with the levels that do")
    func unknownLevel() {
        let problem = #expect(throws: LogSettings.Problem.self) {
            try LogSettings(logFile: nil, logLevel: "verbose", environment: [:])
        }
        #expect(problem?.description
            == "--log-level verbose is not a log level; use one of trace, debug, info, notice, warning, error, critical.")
        #expect((try? LogSettings(logFile: nil, logLevel: "DEBUG", environment: [:]))?.level == .debug)
        #expect((try? LogSettings(logFile: nil, logLevel: "info", environment: [:])) == LogSettings(path: nil, level: .info))
    }

    @Test("A log file in a folder that does not exist is refused, naming the folder")
    func missingFolder() {
        let problem = #expect(throws: LogSettings.Problem.self) {
            try LogSettings(logFile: "/nonexistent/dir/log", logLevel: "info", environment: [:])
        }
        #expect(problem?.description.hasPrefix("--log-file /nonexistent/dir/log: the folder /nonexistent/dir does not exist") == true)
        let fromEnvironment = #expect(throws: LogSettings.Problem.self) {
            try LogSettings(logFile: nil, logLevel: "info", environment: ["BATON_LOG": "/nonexistent/dir/log"])
        }
        #expect(fromEnvironment?.description.hasPrefix("BATON_LOG=/nonexistent/dir/log: the folder /nonexistent/dir") == true)
    }

    @Test("A folder, or a file that cannot be written, is refused; a good path is created and kept")
    func files() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: LogSettings.Problem.self) { try LogSettings(logFile: folder.path, logLevel: "info", environment: [:]) }
        let log = folder.appendingPathComponent("baton.log").path
        let settings = try LogSettings(logFile: log, logLevel: "trace", environment: ["BATON_LOG": "/elsewhere/x"])
        #expect(settings == LogSettings(path: log, level: .trace))
        #expect(FileManager.default.fileExists(atPath: log))
        #expect((try? LogSettings(logFile: nil, logLevel: "info", environment: ["BATON_LOG": log]))?.path == log)
        #expect((try? LogSettings(logFile: nil, logLevel: "info", environment: ["BATON_LOG": ""]))?.path == nil)
    }
}
