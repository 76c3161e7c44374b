import ArgumentParser
import BatonCommands
import HandoffCLI
import HandoffStore

extension KvCommand {
    /// `baton kv policy [POLICY]`.
    struct Policy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set what a store does when two machines write one key at once.",
            discussion: """
                Two writes conflict when neither machine had seen the other's. The newer one always \
                wins the key; what happens to the other is the store's policy:

                  newest       the other is gone (the default)
                  keep-local   this machine writes its own value again, after the winner: it ends \
                with this machine's value everywhere
                  keep-both    the losing value is kept under KEY.conflict.DEVICE (DEVICE: the start \
                of the losing machine's fingerprint)

                Either way kv watch prints a conflict line for the key. The policy is this machine's \
                setting for the store: set it on every machine that shares the store. Running Baton \
                programs take the change within a second.

                  baton kv policy                     the policy of the store baton
                  baton kv policy keep-both --store editor
                """)

        @Argument(
            help: ArgumentHelp("newest, keep-local or keep-both; none shows the policy.", valueName: "policy"),
            transform: { try ConflictPolicy(parsing: $0) })
        var policy: ConflictPolicy?

        @OptionGroup var kv: KvStoreOptions

        @MainActor
        func run() async throws {
            try await KvCommand.perform {
                let machine = KvMachine()
                if let policy {
                    try machine.setPolicy(policy, of: kv.store)
                } else {
                    Console.line(try machine.policy(of: kv.store).rawValue)
                }
            }
        }
    }
}
