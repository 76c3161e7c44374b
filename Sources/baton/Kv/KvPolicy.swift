import ArgumentParser
import BatonCommands
import HandoffCLI
import HandoffStore

extension KvCommand {
    /// `baton kv policy [POLICY] [--command CMD]`.
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
                  resolve      a command decides: keep-both at once, then the machine whose value \
                lost runs --command CMD (with /bin/sh -c) and writes what it prints as the key's new \
                value, everywhere, removing KEY.conflict.DEVICE

                CMD reads one line of JSON on standard input, {"key", "winner", "loser", "ancestor"}, \
                each value as kv get --json prints it (ancestor: the value both writes replaced; null \
                when it was a removal or is not known here), and prints the value to keep as JSON \
                (null removes the key). A non-zero exit, output that is not JSON, or more than 5 \
                seconds leaves keep-both's result; kv watch prints an unresolved line with the reason, \
                and the app's log has it. CMD is saved for the store on this machine only.

                Either way kv watch prints a conflict line for the key. The policy is this machine's \
                setting for the store: set it on every machine that shares the store. Running Baton \
                programs take the change within a second.

                  baton kv policy                     the policy of the store baton
                  baton kv policy keep-both --store editor
                  baton kv policy resolve --command 'jq "[.winner, .loser] | max"'
                                                      numbers: the larger wins
                  baton kv policy resolve --command 'jq -c "(.winner + .loser) | unique"'
                                                      lists: the union of both
                """)

        @Argument(
            help: ArgumentHelp("newest, keep-local, keep-both or resolve; none shows the policy.", valueName: "policy"),
            transform: { try ConflictPolicy(parsing: $0) })
        var policy: ConflictPolicy?

        @Option(help: ArgumentHelp("With resolve: the command that decides (run with /bin/sh -c).", valueName: "cmd"))
        var command: String?

        @OptionGroup var kv: KvStoreOptions

        func validate() throws {
            if command != nil, policy != .resolve {
                throw ValidationError("--command goes with the policy resolve: baton kv policy resolve --command CMD.")
            }
        }

        @MainActor
        func run() async throws {
            try await KvCommand.perform {
                let machine = KvMachine()
                if let command {
                    try machine.setResolve(command: command, of: kv.store)
                } else if let policy {
                    try machine.setPolicy(policy, of: kv.store)
                } else {
                    Console.line(try machine.policyLine(of: kv.store))
                }
            }
        }
    }
}
