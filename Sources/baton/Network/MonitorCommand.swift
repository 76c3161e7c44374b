import ArgumentParser
import FoundationEssentials
import Handoff
import HandoffCLI
import HandoffStore
import HandoffWire
import BatonCommands
import BatonFiles

/// `baton monitor`: what peers offer, as lines, without a UI.
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Print every peer activity as it appears, changes and goes, and the receive counters.",
        discussion: """
            For scripts (--json: one JSON object per line) and for finding out why two machines do \
            not see each other: if nothing appears, check that the two are paired (`baton devices` lists \
            the other) and use the same key (`baton key`), \
            that UDP port 47788 is open, and that --interface names the LAN, not a VPN or Docker bridge. \
            Lines starting with # count what arrived: accepted, our own, and rejected by reason \
            (authenticationFailed usually means another key; a line starting with \
            "# another group key" says from which address, and what to do). An activity too large for one datagram \
            shows its size after the revision, e.g. (12 MB), and as "size" in bytes with --json; it is \
            fetched in full only when continued. Ctrl-C stops.
            """)

    @OptionGroup var network: NetworkOptions

    @Flag(help: "One JSON object per line.")
    var json = false

    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C).", valueName: "seconds"))
    var duration: Double?

    @MainActor
    func run() async throws {
        let session = try await PeerSession(options: network, app: "baton", appVersion: Baton.version)
        let write: (String) -> Void = Console.line
        if !json {
            write("# listening on \(session.endpoint) as \(session.peer.name), key from \(session.keySource)")
        }
        let monitor = NearbyMonitor(center: session.center, format: json ? .json : .text, write: write)
        monitor.start()
        // Every running Baton holds this machine's key-value stores and answers peers about them.
        let stores = StoreSync(center: session.center, folder: StoreFile.defaultFolder())
        stores.resolvers = ResolveCommand.resolvers(environment: ProcessInfo.processInfo.environment)
        stores.problems.forEach { Console.note(PeerText.visible($0)) }
        stores.start()
        session.center.query()
        await UntilStopped.wait(duration: duration.map { .seconds($0) })
        monitor.stop()
        stores.stop()
        await session.shutdown()
    }
}
