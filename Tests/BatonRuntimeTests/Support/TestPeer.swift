import BatonCommands
import BatonApp
import BatonResources
import BatonRuntime
import Handoff
import HandoffTesting
import Logging
import TerminalUI
import HandoffWire
import HandoffStore

/// One running Program over a `TestBackend` and an activity center on an in-memory network.
@MainActor
struct TestPeer {
    let program: Program
    let backend: TestBackend
    let center: ActivityCenter
    let run: Task<Void, Never>

    static let registry = try! ActivityTypeRegistry(data: BatonResources.registryData)
    static let key = GroupKey(bytes: Array(repeating: 7, count: 32))!

    /// A started center named `name` (e.g. `alice@a`) on `network`.
    static func center(_ network: InMemoryNetwork, _ name: String) -> ActivityCenter {
        let peer = PeerInfo(name: name, host: "\(name).test", app: "baton", appVersion: "test")
        var configuration = ActivityCenter.Configuration(peer: peer)
        // Nothing here is about forgetting a silent peer, and with the whole suite on two cores
        // a peer's repeats can come later than the usual 3.5 s: only a WITHDRAW takes an
        // activity from the list.
        configuration.forgetAfter = .seconds(600)
        let center = ActivityCenter(
            registry: registry, membership: .sharedDevice(of: key), transport: network.makeTransport(name: name),
            configuration: configuration)
        center.start()
        return center
    }

    /// Runs a Program showing `session` on a 48×14 screen.
    static func start(
        _ center: ActivityCenter, session: Session, opening: [AppMessage] = [], clipboard: KeyValueStore? = nil,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> TestPeer {
        let backend = TestBackend(width: 48, height: 14)
        let program = Program(
            backend: backend, center: center, session: session,
            status: StatusInfo(peerName: center.configuration.peer.name, endpoint: "memory", network: .online),
            clipboard: clipboard.map(StoreClipboard.init(store:)), logger: logger)
        // A main-actor task, as `baton` runs it: its awaits resume on the main actor directly,
        // not through the cooperative pool, which the suite's long synchronous tests can hold.
        let run = Task { @MainActor in await program.run(opening: opening) }
        return TestPeer(program: program, backend: backend, center: center, run: run)
    }

    /// Ends the input (which quits), waits for the run to return, shuts the center down.
    func stop() async {
        backend.endInput()
        await run.value
        await center.shutdown()
    }
}
