import ArgumentParser
import FoundationEssentials
import HandoffCLI
import HandoffWire

/// `baton`: Handoff for the terminal.
@main
struct Baton: AsyncParsableCommand {
    static let version = "1.0.0"

    static let configuration = CommandConfiguration(
        commandName: "baton",
        abstract: "Handoff for the terminal: start a counter or an edit here, continue it in another terminal.",
        discussion: BatonHelp.overview,
        version: VersionText.text(version: version, protocols: VersionText.protocols(pairing: true), runtime: .current()),
        subcommands: [
            CounterCommand.self, EditCommand.self, ShellCommand.self, FollowCommand.self, MonitorCommand.self, PairCommand.self, IdCommand.self, DevicesCommand.self,
            KeyCommand.self, DoctorCommand.self,
            ConfigCommand.self, KvCommand.self, PeerCommand.self,
        ],
        defaultSubcommand: CounterCommand.self)
}

extension Baton {
    /// Runs the command line; a request for a completion script gets the parser's script with
    /// the lines that complete the default subcommand without its name (`DefaultCommandCompletion`).
    static func main() async {
        // Before anything uses OpenSSL: threads that outlive `main` may still use it.
        _ = OpenSSLProcess.prepared
        let arguments = CommandLine.arguments
        if let shell = DefaultCommandCompletion.requestedShell(in: arguments) {
            let generated = completionScript(for: shell)
            let command = configuration.commandName ?? "baton"
            let subcommand = CounterCommand.configuration.commandName ?? "counter"
            let script = DefaultCommandCompletion.script(for: shell, generated: generated, command: command, subcommand: subcommand)
            print(script, terminator: script.hasSuffix("\n") ? "" : "\n")
            return
        }
        await main(nil)
    }
}
