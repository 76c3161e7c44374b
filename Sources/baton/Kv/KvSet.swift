import ArgumentParser
import BatonCommands
import FoundationEssentials
import Glibc
import HandoffCLI
import HandoffStore

extension KvCommand {
    /// `baton kv set KEY VALUE`.
    struct SetValue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a key to a value, here and on every machine of the group.",
            discussion: """
                VALUE is JSON (objects, arrays, strings, numbers, true, false; not null); with --string \
                it is the text itself. VALUE - reads standard input to its end: with --string the text \
                as it is (a final newline included), else JSON.

                  baton kv set theme dark --string
                  baton kv set theme '"dark"'             the same, as JSON
                  baton kv set font-size 14
                  baton kv set layout '{"w": 80, "h": 24}'
                  printf %s "$TEXT" | baton kv set note - --string

                The value is on disk here when set returns, and is sent to the peers at once; set \
                then waits up to --wait seconds for one of them to take it and prints nothing. When \
                none did, it says so on standard error and still exits 0: the value goes out when a \
                peer is heard. A write past a store's limit fails with exit status 1 and changes nothing.
                """)

        @Argument(help: ArgumentHelp("The key: 1-64 UTF-8 bytes.", valueName: "key"), transform: { try StoreKey(parsing: $0) })
        var key: StoreKey

        @Argument(help: ArgumentHelp("The value, as JSON (text with --string); - reads standard input.", valueName: "value"))
        var value: String

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "Take VALUE as text, not JSON.")
        var string = false

        @Option(
            help: ArgumentHelp("Seconds to wait for a peer to take the value; 0 does not wait.", valueName: "seconds")
                .defaulting(to: Seconds(2)),
            transform: { try Seconds.wait($0) })
        var wait = Seconds(2)

        @OptionGroup var network: NetworkOptions

        func validate() throws {
            // A VALUE that is not JSON is a usage error, found before the network is joined.
            if value != "-" {
                do {
                    _ = try StoreText.value(from: value, asString: string, key: key.text)
                } catch {
                    throw ValidationError(error.description)
                }
            }
        }

        @MainActor
        func run() async throws {
            let text: String
            if value == "-" {
                if isatty(STDIN_FILENO) == 1 { Console.note("Reading the value from standard input; end it with Ctrl-D.") }
                text = try StoreText.readAll()
            } else {
                text = value
            }
            let parsed = try StoreText.value(from: text, asString: string, key: key.text, fromStandardInput: value == "-")
            try await KvCommand.write(network, store: kv.store) { session throws(KvFailure) in
                try await session.set(parsed, forKey: key, wait: wait)
            } offline: { store throws(KeyValueStoreError) in
                try store.set(parsed, forKey: key.text)
            }
        }
    }
}
