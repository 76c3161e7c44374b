import ArgumentParser
import BatonApp
import BatonCommands
import HandoffCLI

/// `baton follow [TYPE]`: a session another machine is working in, shown live and read-only.
struct FollowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Watch a session another machine is working in, live and read-only.",
        discussion: """
            Shows the newest activity a peer offers (of TYPE when given) as it changes there: its \
            text and cursor, or its count. Nothing typed here reaches it. Ctrl-N lists what is \
            nearby (Enter continues one, f follows it), Ctrl-Q quits. A peer whose Baton does not \
            offer live sessions is named, with the command that continues it instead.
            """)

    @OptionGroup var network: NetworkOptions

    @Argument(help: ArgumentHelp("The activity type to follow, e.g. dev.baton.editing or counter.", valueName: "type"))
    var activityType: String?

    @Option(
        help: ArgumentHelp("Seconds to wait for a peer's answer.", valueName: "seconds").defaulting(to: Seconds(2)),
        transform: { try Seconds.answerWait($0) })
    var wait = Seconds(2)

    @Option(help: ArgumentHelp("Only the peer of this name, e.g. alice@laptop.", valueName: "name"))
    var from: String?

    @Option(name: .customLong("log-file"), help: ArgumentHelp(
        "Write a log to this file (env BATON_LOG); nothing is ever logged to the screen.", valueName: "path"))
    var logFile: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp(
        "trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    @MainActor
    func run() async throws {
        // Found as --continue-activity finds what to continue, with the same checks of TYPE.
        var arguments = ["--continue-activity", "--wait", "\(wait.value)", "--log-level", logLevel]
        if let from { arguments += ["--from", from] }
        if let logFile { arguments += ["--log-file", logFile] }
        let options = try SessionOptions.parse(arguments)
        var launch = Launch(network: network, options: options)
        launch.follow = true
        try await launch.run(start: .counter(CounterState(count: 0)), continueType: activityType)
    }
}
