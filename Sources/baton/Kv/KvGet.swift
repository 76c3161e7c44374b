import ArgumentParser
import BatonCommands
import HandoffCLI
import PropertyList

extension KvCommand {
    /// `baton kv get KEY`.
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the value of a key.",
            discussion: """
                Waits up to --wait seconds for a peer to be in step with this machine (the same \
                digests), then prints the value: a string as its text, anything else as one line of \
                JSON. In the text, characters that could act on the terminal are shown visibly (a \
                newline as ␊); --json prints the exact value.

                  baton kv get theme                  dark
                  baton kv get layout                 {"w":80}
                  baton kv get theme --json           "dark"
                  baton kv get theme --wait 0         this machine's copy, without the network

                Exit status 1, with nothing on standard output, when there is no such key.
                """)

        @Argument(help: ArgumentHelp("The key: 1-64 UTF-8 bytes.", valueName: "key"), transform: { try StoreKey(parsing: $0) })
        var key: StoreKey

        @OptionGroup var kv: KvStoreOptions

        @Flag(help: "Print the value as JSON, a string too: the exact text, with \\uXXXX for control characters.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "Seconds to wait for a peer to be in step; 0 reads this machine's copy without the network.",
                valueName: "seconds"
            ).defaulting(to: Seconds(1)),
            transform: { try Seconds.wait($0) })
        var wait = Seconds(1)

        @OptionGroup var network: NetworkOptions

        @MainActor
        func run() async throws {
            let value: PropertyListValue = try await KvCommand.perform {
                if wait.isZero { return try KvMachine().value(of: key, in: kv.store) }
                return try await KvCommand.join(network, store: kv.store).session.value(of: key, wait: wait)
            }
            Console.line(StoreText.text(of: value, json: json))
        }
    }
}
