import ArgumentParser
import BatonCommands
import BatonRuntime
import FoundationEssentials
import HandoffCLI
import Logging

/// Options of the commands that show a session: continuing and logging.
struct SessionOptions: ParsableArguments {
    @Flag(name: .customLong("continue-activity"), help: ArgumentHelp(
        "Continue the newest activity a peer offers (of TYPE when given) instead of starting anew."))
    var continueActivity = false

    @Option(
        help: ArgumentHelp("With --continue-activity: seconds to wait for a peer's answer.", valueName: "seconds")
            .defaulting(to: Seconds(2)),
        transform: { try Seconds.answerWait($0) })
    var wait = Seconds(2)

    @Option(help: ArgumentHelp("With --continue-activity: only from the peer of this name, e.g. alice@laptop.", valueName: "name"))
    var from: String?

    @OptionGroup var log: LogOptions

    func validate() throws {
        if from != nil, !continueActivity { throw ValidationError("--from goes with --continue-activity.") }
    }

    /// What `Launch` takes of them.
    var launch: LaunchOptions {
        LaunchOptions(continueActivity: continueActivity, from: from, wait: wait, log: log)
    }
}

/// Where the commands that show a session write their log.
struct LogOptions: ParsableArguments {
    @Option(name: .customLong("log-file"), help: ArgumentHelp(
        "Write a log to this file (env BATON_LOG); nothing is ever logged to the screen.", valueName: "path"),
        completion: .file())
    var logFile: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"
}

/// What `Launch` needs of the options: whether to find an activity first (continuing, or
/// following with `follow`), from whom, how long to wait, and the log.
struct LaunchOptions {
    var continueActivity: Bool
    var from: String?
    var wait: Seconds
    var log: LogOptions
}

extension LogOptions {
    /// The logger of `--log-file` (or `BATON_LOG`) at `--log-level`; a level that does not exist
    /// or a file that cannot be written is refused here, before anything else starts.
    func makeLogger() throws -> Logger {
        let settings: LogSettings
        do {
            settings = try LogSettings(logFile: logFile, logLevel: logLevel)
        } catch {
            throw CommandFailure(error.description)
        }
        let path = settings.path
        let level = settings.level
        LoggingSystem.bootstrap { label in
            guard let path, var handler = FileLogHandler(label: label, path: path) else { return SwiftLogNoOpLogHandler() }
            handler.logLevel = level
            return handler
        }
        return Logger(label: "baton")
    }
}
