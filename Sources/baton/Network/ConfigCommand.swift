import ArgumentParser
import FoundationEssentials
import HandoffCLI

/// `baton config`: every setting as baton would use it, and where each came from.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show each setting baton would use, and where it came from (flag, environment, file, default).",
        discussion: """
            Settings come from, strongest first: an option on the command line, its BATON_* \
            environment variable, a file in ~/.config/baton (peers, relay, group.key), and \
            Baton's default. Give the options you would give baton to see what they change:

              baton config
              baton config --peer 10.0.0.7 --port 47800
              baton config --json            one JSON array: name, value, origin, source

            The key itself is never shown: `baton key` prints it.
            """)

    @OptionGroup var network: NetworkOptions

    @Option(name: .customLong("log-file"), help: ArgumentHelp(
        "The log file a session would write (env BATON_LOG).", valueName: "path"))
    var logFile: String?

    @Flag(help: "One JSON array of {name, value, origin, source}.")
    var json = false

    func run() throws {
        let settings = try network.effectiveSettings(logFile: logFile)
        let text = json ? EffectiveSetting.json(settings) : EffectiveSetting.text(settings)
        Console.line(text)
    }
}
