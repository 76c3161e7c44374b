import ArgumentParser
import BatonShell
import FoundationEssentials
import HandoffCLI
import ShellHost

/// `baton shell [-- COMMAND [ARGS…]]`: a program on a pseudo-terminal here, shown in this
/// terminal, that another listed machine continues and drives, and this one takes back.
struct ShellCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell",
        abstract: "Run your shell (or a command) so another terminal can continue it live.",
        discussion: """
            The program runs here, on a pseudo-terminal of its own, and shows in this terminal as if \
            it ran directly. Another listed machine continues it with baton --continue-activity \
            dev.baton.shell: this terminal's user is asked first, \
            "bob@desk asks to take this session: y/N". Once taken, the program's screen and keyboard \
            are there; this terminal follows read-only, and t takes the session back. baton follow \
            watches one read-only.

            Keys while this terminal drives go to the program, except Ctrl-], which starts a command: \
            Ctrl-] d leaves the session running (baton shell --attach brings it back), Ctrl-] Ctrl-] \
            types Ctrl-]. Following: t takes the session, q leaves it running.

            When the program ends, every terminal showing it ends with its exit status. What a listed \
            device can do with a shared shell, and what it cannot, is in docs/PROTOCOL.md section 20.
            """)

    @Flag(name: .customLong("allow-listed"), help: ArgumentHelp(
        "Let every listed device take this session without asking (a device that is not listed never can)."))
    var allowListed = false

    @Flag(help: ArgumentHelp("Show a session this machine runs that no terminal shows any more, instead of starting one."))
    var attach = false

    @Flag(name: .customLong("keep"), help: .hidden)
    var keep = false

    @OptionGroup var network: NetworkOptions
    @OptionGroup var log: LogOptions

    @Argument(parsing: .postTerminator, help: ArgumentHelp(
        "The command to run instead of $SHELL, after --, e.g. baton shell -- htop.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if attach, !command.isEmpty { throw ValidationError("--attach shows a running session; it takes no command.") }
        if attach, allowListed { throw ValidationError("--allow-listed goes with starting a session, not with --attach.") }
    }

    /// What runs: the command, or the user's shell.
    var program: [String] {
        if !command.isEmpty { return command }
        let shell = ProcessInfo.processInfo.environment["SHELL"].flatMap { $0.isEmpty ? nil : $0 } ?? "/bin/sh"
        return [shell]
    }

    @MainActor
    func run() async throws {
        if keep {
            let status = await ShellKeeping(
                network: network, log: log, program: program, allowListed: allowListed, rows: rows, columns: columns).run()
            throw ExitCode(Int32(status))
        }
        try Launch.requireTerminal()
        let terminal = ShellTerminal(network: network, log: log)
        let stream: ShellTerminal.Opening
        if attach {
            stream = .ownSession
        } else {
            // The keeper is started with this command line, less what only this terminal takes.
            let size = ShellTerminal.size()
            var arguments = ["shell", "--keep", "--rows", "\(size.rows)", "--columns", "\(size.columns)"]
            arguments += Self.keeperArguments(CommandLine.arguments.dropFirst())
            let id: String
            do {
                id = try KeeperProcess.start(arguments: arguments, timeout: .seconds(10))
            } catch {
                throw CommandFailure("baton shell: \(error.description)")
            }
            stream = .activity(id)
        }
        let status = try await terminal.run(stream, role: .drive)
        throw ExitCode(Int32(status))
    }

    /// The arguments the keeper is given: this command line's after `shell`, less `--attach`.
    static func keeperArguments(_ arguments: ArraySlice<String>) -> [String] {
        var rest = Array(arguments)
        if let index = rest.firstIndex(of: "shell") { rest.removeSubrange(...index) }
        return rest.filter { $0 != "--attach" }
    }

    @Option(help: .hidden) var rows: Int = 24
    @Option(help: .hidden) var columns: Int = 80
}
