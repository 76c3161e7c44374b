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

    @Argument(
        help: ArgumentHelp("The activity type to follow, e.g. dev.baton.editing or counter.", valueName: "type"),
        completion: .custom { _, _, prefix in ActivityTypeCompletion.words(prefix: prefix) })
    var activityType: String?

    @Option(
        help: ArgumentHelp("Seconds to wait for a peer's answer.", valueName: "seconds").defaulting(to: Seconds(2)),
        transform: { try Seconds.answerWait($0) })
    var wait = Seconds(2)

    @Option(help: ArgumentHelp("Only the peer of this name, e.g. alice@laptop.", valueName: "name"))
    var from: String?

    @OptionGroup var log: LogOptions

    @MainActor
    func run() async throws {
        // Found as --continue-activity finds what to continue, with the same checks of TYPE.
        var launch = Launch(network: network, options: LaunchOptions(continueActivity: true, from: from, wait: wait, log: log))
        launch.follow = true
        try await launch.run(start: .counter(CounterState(count: 0)), continueType: activityType)
    }
}
