import ArgumentParser
import BatonCommands
import FoundationEssentials
import HandoffCLI
import HandoffStore

extension KvCommand {
    /// `baton kv import FILE`.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set many keys at once from a JSON object: one write, here and on every machine.",
            discussion: """
                FILE holds one JSON object; each of its keys is set to its value (JSON as for set; \
                null removes the key). The keys are checked together against the store's limits: \
                when one would break, nothing is written. - reads standard input.

                  baton kv import settings.json
                  baton kv list --json | jq -s 'map({(.key): .value}) | add' > backup.json
                  baton kv import backup.json --store restored

                Like set, it waits up to --wait seconds for a peer to take the write.
                """)

        @Argument(help: ArgumentHelp("A file holding a JSON object; - reads standard input.", valueName: "file"))
        var file: String

        @OptionGroup var kv: KvStoreOptions

        @Option(
            help: ArgumentHelp("Seconds to wait for a peer to take the write; 0 does not wait.", valueName: "seconds")
                .defaulting(to: Seconds(2)),
            transform: { try Seconds.wait($0) })
        var wait = Seconds(2)

        @OptionGroup var network: NetworkOptions

        @MainActor
        func run() async throws {
            let text: String
            if file == "-" {
                text = try StoreText.readAll(limit: 8 * 1_048_576)
            } else {
                guard let data = FileManager.default.contents(atPath: file), let read = String(data: data, encoding: .utf8) else {
                    throw CommandFailure("Cannot read \(file): it is missing, unreadable or not UTF-8 text.")
                }
                text = read
            }
            let values = try StoreText.importValues(from: text)
            try await KvCommand.write(network, store: kv.store) { session throws(KvFailure) in
                try await session.setAll(values, wait: wait)
            } offline: { store throws(KeyValueStoreError) in
                try store.setAll(values)
            }
        }
    }
}
