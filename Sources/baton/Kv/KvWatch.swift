import ArgumentParser
import BatonCommands
import FoundationEssentials
import HandoffCLI
import HandoffWire

extension KvCommand {
    /// `baton kv watch`.
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each change peers make to a store, as it arrives, until Ctrl-C.",
            discussion: """
                One line per key changed: why, the key, and its value now. While it runs it holds \
                every store on this machine and answers peers, as the app and baton monitor do.

                  peerChange theme = dark            a peer's write, taken
                  peerChange theme removed
                  initialSync font-size = 14         caught up after start: changed while away
                  conflict theme = light             two writes crossed; the newest won
                  quotaViolation logo: …             a peer's value, over this store's limits
                  resolved tags = ["a","b"]          the resolve command decided (kv policy --help)
                  unresolved tags = …  (why)         it did not: keep-both's result stays

                --json prints one object per key and line: store, reason, key, and value (or \
                "removed": true, and "note" for unresolved). Ctrl-C or SIGTERM stops it, with exit status 0.
                """)

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "One JSON object per key and line.")
        var json = false

        @Option(
            help: ArgumentHelp("Stop after this many seconds (default: run until Ctrl-C).", valueName: "seconds"),
            transform: { try Seconds.running($0) })
        var duration: Seconds?

        @OptionGroup var network: NetworkOptions

        @MainActor
        func run() async throws {
            let (session, peers) = try await KvCommand.perform { try await KvCommand.join(network, store: kv.store) }
            let store = session.store
            if !json {
                Console.line(
                    "# watching the store \(PeerText.visible(store.name)) (\(KvText.count(store.usage.keys, "key"))) on \(peers.endpoint) "
                        + "as \(PeerText.visible(peers.peer.name)), key from \(peers.keySource); Ctrl-C stops")
            }
            let changes = store.changes()
            let json = json
            let printer = Task { @MainActor in
                for await change in changes {
                    session.lines(of: change, json: json, at: Date()).forEach(Console.line)
                    session.tellProblems()
                }
            }
            await UntilStopped.wait(duration: duration?.duration)
            printer.cancel()
            await session.close()
        }
    }
}
