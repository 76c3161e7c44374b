import BatonShell
import Handoff
import HandoffWire
import Logging
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// A shell session's keeper: the activity that offers it (`dev.baton.shell`), on the main
/// actor, and `ShellKeeperEngine` on an event loop, which runs the program on its
/// pseudo-terminal, holds its screen in libvterm and serves the terminals joined to it on
/// continuation streams by `ShellKeeperCore`'s rules. It lives until the program ends, whoever
/// is attached or not.
@MainActor
public final class ShellKeeper: UserActivityDelegate {
    /// The declared activity type of a shell session.
    public static let activityType = "dev.baton.shell"

    let center: ActivityCenter
    let engine: ShellKeeperEngine
    let activity: UserActivity
    let logger: Logger
    /// What the activity says runs, and where; followed as the program in front changes.
    var running: RunningProgram
    var size: (rows: Int, columns: Int)
    /// How many terminals are joined, as the engine last said.
    private(set) var terminalCount = 0

    /// Starts `arguments` on a pseudo-terminal of `rows` × `columns` in `folder`, and offers it.
    /// The engine runs on `loop`: a terminal whose connection is read on that loop too sends a
    /// key and gets its echo with no other thread woken; one read on another loop, with one more.
    public init(
        center: ActivityCenter, arguments: [String], environment: [String: String], folder: String, rows: Int, columns: Int,
        allowsListedDevices: Bool, logger: Logger, loop: any EventLoop = ShellKeeper.engineLoop()
    ) throws(Pseudoterminal.StartError) {
        self.center = center
        self.logger = logger
        let pty = try Pseudoterminal(arguments: arguments, environment: environment, folder: folder, rows: rows, columns: columns)
        running = RunningProgram(arguments: arguments, folder: folder)
        size = (rows, columns)
        activity = UserActivity(activityType: Self.activityType, center: center)
        let reported = Reported()
        engine = ShellKeeperEngine(
            pty: pty, rows: rows, columns: columns, running: running, allowsListedDevices: allowsListedDevices, clock: center.clock,
            logger: logger, loop: loop, report: { report in Task { @MainActor in reported.keeper?.heard(report) } })
        reported.keeper = self
        activity.supportsContinuationStreams = true
        activity.delegate = self
        publish()
    }

    /// A loop for an engine (one of NIO's shared group's): the keeper's state stream reads its
    /// connections on the same one.
    public nonisolated static func engineLoop() -> any EventLoop {
        MultiThreadedEventLoopGroup.singleton.next()
    }

    /// Where the engine's reports go: the keeper, once it is made.
    @MainActor
    final class Reported {
        weak var keeper: ShellKeeper?
    }

    /// The activity's id, which a terminal on this machine opens its stream to.
    public var activityID: String { activity.activityID }

    /// Runs until the program ends; returns its status as a shell gives it.
    public func run() async -> Int {
        do { try activity.becomeCurrent() } catch { logger.error("the session is not offered: \(error)") }
        let membership = Task { @MainActor [weak self] in
            guard let events = self?.center.events() else { return }
            for await event in events {
                if case .membershipChanged = event { await self?.closeRemovedDevices() }
            }
        }
        let status = await engine.run()
        membership.cancel()
        activity.invalidate()
        return status
    }

    // MARK: - Terminals

    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        let origin: ShellKeeperCore.Origin = stream.peer.device == center.membership.identity.publicIdentity ? .thisDevice : .listedDevice
        let engine = engine
        Task { await engine.join(stream, origin: origin) }
    }

    /// A device removed from the list loses its terminals at once.
    func closeRemovedDevices() async {
        for (id, peer) in await engine.peers() where center.membership.device(for: peer.senderID.tag) == nil {
            logger.notice("\(peer.name) was removed from the device list: its terminal is closed")
            await engine.close(id)
        }
    }


    /// What the engine says changed: the activity is published again.
    func heard(_ report: ShellKeeperEngine.Report) {
        switch report {
        case .size(let rows, let columns): size = (rows, columns)
        case .running(let seen): running = seen
        case .terminals(let count):
            terminalCount = count
            return
        }
        publish()
    }
}

extension ShellKeeper {
    /// Hangs up the program, as closing its terminal would.
    public func hangUp() {
        engine.pty.signal(SIGHUP)
    }
}
