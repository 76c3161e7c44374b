import ArgumentParser
import BatonCommands
import HandoffCLI
import HandoffStore

/// `baton kv`: the group's key-value stores from the terminal (docs/PROTOCOL.md, section 18).
struct KvCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kv",
        abstract: "Keep small keys and values the same on every machine of the group: settings, a last-opened file.",
        discussion: """
            A key-value store shared by the machines that share the group key: Apple's \
            NSUbiquitousKeyValueStore without an account or a server. A write is saved here at once \
            and sent to the peers. Every running Baton program (the app, baton monitor, baton kv \
            watch) holds the stores and answers the others, so a machine that was away catches up \
            when it comes back. When two machines write one key, the newest write wins everywhere.

              baton kv set theme dark --string    a text
              baton kv set font-size 14           JSON: 14, true, [1, 2], {"w": 80}, "dark"
              printf %s "$TEXT" | baton kv set note - --string    VALUE from standard input
              baton kv get theme                  dark; exit 1 when there is no such key
              baton kv rm theme                   removed on every machine
              baton kv list                       KEY, BYTES, WRITER, SAVED of each key
              baton kv watch                      each change peers make, until Ctrl-C
              baton kv import settings.json       many keys at once, from a JSON object
              baton kv policy keep-both           what a store does when two machines write one key

            VALUE is JSON, read as baton peer announce --user-info is: objects, arrays, strings, numbers (a \
            whole number is an integer), true and false; null is refused. A bare word is not JSON: \
            add --string, or quote it ('"dark"').

            Stores have names (--store NAME, default baton) and live in $XDG_STATE_HOME/baton/store \
            (~/.local/state/baton/store), a NAME.plist each, mode 0600. A store holds at most 1,024 \
            keys of up to 64 bytes and 1 MB of keys and values; a write past a limit fails and \
            changes nothing.

            Exit status: 0 done; 1 no such key, a write the store refused, or a network or file \
            problem (said on standard error); 64 a usage error (a bad KEY, VALUE or option).
            """,
        subcommands: [Get.self, SetValue.self, Remove.self, List.self, Watch.self, Import.self, Policy.self])
}

/// `--store NAME`, on every `baton kv` subcommand.
struct KvStoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("The store: 1-64 UTF-8 bytes, without / or NUL, not starting with a dot.", valueName: "name")
            .defaulting(to: StoreName.standard),
        transform: { try StoreName(parsing: $0) })
    var store = StoreName.standard
}

extension KvCommand {
    /// Runs a command's work: a `KvFailure` ends the command as `end()` says, any other error
    /// is the command's own.
    @MainActor
    static func perform<T>(_ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let failure as KvFailure {
            throw failure.end()
        }
    }

    /// Joins the group for a command on the network, holding this machine's stores.
    @MainActor
    static func join(_ network: NetworkOptions, store: StoreName) async throws -> (session: KvSession, peers: PeerSession) {
        // A full store's plist (1 MB, read, written and served whole) in buffers that go back to
        // the system once freed, as the editor's large states do.
        EditCommand.returnLargeBuffersToTheSystem()
        return try await KvSession.join(network, appVersion: Baton.version, store: store)
    }

    /// A write (`online`) on the network; when the network cannot be joined, the same write on
    /// this machine's disk alone (`offline`), which goes out when a Baton program here is on the
    /// network. Says how it went when not as asked.
    @MainActor
    static func write(
        _ network: NetworkOptions, store: StoreName, online: (KvSession) async throws(KvFailure) -> KvDelivery,
        offline: (KeyValueStore) throws(KeyValueStoreError) -> Void
    ) async throws {
        let delivery = try await perform {
            let session: KvSession
            do {
                session = try await join(network, store: store).session
            } catch let failure as KvFailure {
                throw failure
            } catch {
                return try KvMachine().writeOffline(store, because: error, offline)
            }
            return try await online(session)
        }
        if let note = delivery.note { Console.note(note) }
    }
}

extension KvFailure {
    /// How a command ends on this failure: its note on standard error and exit status 1, or,
    /// for a file of this machine, the error argument-parser prints.
    func end() -> any Error {
        if case .files(let sentence) = self { return CommandFailure(sentence) }
        if let note { Console.note(note) }
        return ExitCode.failure
    }
}
