import ArgumentParser
import BatonApp
import BatonCommands
import FoundationEssentials
import Handoff
import HandoffCLI
import HandoffWire

extension KvCommand {
    /// `baton kv list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the keys of a store: size, writer and age.",
            discussion: """
                Reads this machine's copy on disk, without the network, unless --wait asks peers \
                first. WRITER is the machine that wrote the value, by its name in baton devices, \
                else the first 8 digits of its fingerprint; BYTES is what the key counts against the \
                store's 1 MB. A store not in step with any peer for over 30 days is said to be stale: \
                keys removed meanwhile elsewhere may come back from here.

                  baton kv list
                  baton kv list --store editor --json
                  baton kv list --wait 1              ask peers for a second first

                --json prints one object per key and line: key, value, size, writer (the writing \
                program's sender id in hex: its machine's tag, then the program's instance), writerName \
                (when listed), savedAt (ISO 8601).
                """,
            aliases: ["ls"])

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "One JSON object per key and line.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Ask peers first, waiting up to this many seconds for one to be in step (default: no network).",
                valueName: "seconds"),
            transform: { try Seconds.wait($0) })
        var wait: Seconds?

        @OptionGroup var network: NetworkOptions

        @MainActor
        func run() async throws {
            let machine = KvMachine()
            let listing: KvListing = try await KvCommand.perform {
                if let wait, !wait.isZero {
                    return try await KvCommand.join(network, store: kv.store).session.listing(wait: wait)
                }
                let ownName = PeerInfo.local(app: "baton", appVersion: Baton.version, name: network.name).name
                return try machine.listing(kv.store, ownName: ownName)
            }
            if let note = listing.staleNote(now: Date()) { Console.note(note) }
            if json {
                listing.rows.forEach { Console.line(StoreText.listJSON($0)) }
            } else if let text = StoreText.list(listing.rows, age: { RelativeAge.describe(seconds: Date().timeIntervalSince($0)) }) {
                Console.line(text)
            }
            if listing.rows.isEmpty { Console.note(machine.emptyNote(kv.store)) }
        }
    }
}
