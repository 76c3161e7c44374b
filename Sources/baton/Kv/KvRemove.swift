import ArgumentParser
import BatonCommands
import HandoffCLI

extension KvCommand {
    /// `baton kv rm KEY`.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract: "Remove a key, here and on every machine of the group.",
            discussion: """
                The removal is on disk here when rm returns and goes to the peers as a write does; rm \
                waits up to --wait seconds for one of them to take it, as set does. A machine away \
                for more than 30 days may bring the key back: baton kv list says when a store is stale.

                  baton kv rm theme
                  baton kv rm window --store editor

                Exit status 1 when there is no such key, here or at a peer that answered in time.
                """,
            aliases: ["remove"])

        @Argument(help: ArgumentHelp("The key: 1-64 UTF-8 bytes.", valueName: "key"), transform: { try StoreKey(parsing: $0) })
        var key: StoreKey

        @OptionGroup var kv: KvStoreOptions

        @Option(
            help: ArgumentHelp("Seconds to wait for a peer to take the removal; 0 does not wait.", valueName: "seconds")
                .defaulting(to: Seconds(2)),
            transform: { try Seconds.wait($0) })
        var wait = Seconds(2)

        @OptionGroup var network: NetworkOptions

        @MainActor
        func run() async throws {
            let delivery = try await KvCommand.perform {
                try await KvCommand.join(network, store: kv.store).session.remove(key, wait: wait)
            }
            if let note = delivery.note { Console.note(note) }
        }
    }
}
