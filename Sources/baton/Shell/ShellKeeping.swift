import FoundationEssentials
import Glibc
import Dispatch
import HandoffCLI
import Logging
import ShellHost

/// `baton shell --keep`: the keeper process `baton shell` starts. It joins the network, runs the
/// program on its pseudo-terminal, offers the session and serves the terminals that join it,
/// until the program ends. It has no terminal: what it has to say goes on its pipe, then to
/// its log.
@MainActor
struct ShellKeeping {
    let network: NetworkOptions
    let log: LogOptions
    let program: [String]
    let allowListed: Bool
    let rows: Int
    let columns: Int

    /// The program's exit status, or 1 when the session could not be started.
    func run() async -> Int {
        let ready = KeeperProcess.readyPipe()
        // The keeper outlives the terminal that started it: a hang-up is not its end.
        signal(SIGHUP, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        let logger: Logger
        let joined: JoinedNetwork
        let keeper: ShellKeeper
        // The terminals' connections are read on the engine's loop: a key reaches the program,
        // and its echo leaves, with no other thread woken.
        let loop = ShellKeeper.engineLoop()
        do {
            logger = try log.makeLogger()
            logger.info("the keeper of a shell session starts: joining the network")
            joined = try await JoinedNetwork.join(
                network, app: "baton", version: Baton.version, logger: logger, mustBeOnline: true, streamLoop: loop)
        } catch {
            KeeperProcess.say("error \(Self.text(of: error))", on: ready)
            return 1
        }
        logger.info("joined the network; starting \(program.joined(separator: " "))")
        var environment = ProcessInfo.processInfo.environment
        // The program's terminal is libvterm, which speaks xterm's language.
        environment["TERM"] = "xterm-256color"
        environment["BATON_SHELL"] = "1"
        do {
            keeper = try ShellKeeper(
                center: joined.center, arguments: program, environment: environment,
                folder: FileManager.default.currentDirectoryPath, rows: rows, columns: columns,
                allowsListedDevices: allowListed, logger: logger, loop: loop)
        } catch {
            KeeperProcess.say("error \(error.description)", on: ready)
            await joined.leave()
            return 1
        }
        // SIGTERM or SIGINT to the keeper hangs up the program, as closing a terminal would;
        // the keeper ends with it.
        let stop = [SIGTERM, SIGINT].map { signo -> DispatchSourceSignal in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: .main)
            source.setEventHandler { keeper.hangUp() }
            source.resume()
            return source
        }
        KeeperProcess.say("ok \(keeper.activityID)", on: ready)
        logger.info("shell session \(keeper.activityID): \(program.joined(separator: " "))")
        let status = await keeper.run()
        stop.forEach { $0.cancel() }
        await joined.leave()
        return status
    }

    static func text(of error: any Error) -> String {
        (error as? CommandFailure)?.description ?? "\(error)"
    }
}
