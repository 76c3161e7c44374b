import BatonFiles
import FoundationEssentials
import HandoffStore
import HandoffWire

/// Where `baton kv policy resolve --command CMD` keeps CMD: this machine's setting for one store,
/// `$XDG_CONFIG_HOME/baton/resolve/STORE` (mode 0600, in Baton's 0700 folder), read again at
/// each conflict, so that running programs take a new command at once.
extension ResolveCommand {
    /// The file of `store`'s command.
    package static func path(of store: String, environment: [String: String]) -> String {
        GroupKey.defaultFolder(environment: environment) + "/resolve/" + store
    }

    /// The command saved for `store`; nil when none is (or it cannot be read: said by `problem`).
    package static func saved(for store: String, environment: [String: String]) throws(PrivateFile.Problem) -> String? {
        guard let bytes = try PrivateFile.read(path: path(of: store, environment: environment), limit: 65_536) else { return nil }
        let command = String(decoding: bytes, as: UTF8.self).trimmed(while: \.isNewline)
        return command.isEmpty ? nil : command
    }

    /// Saves `command` for `store`.
    package static func save(_ command: String, for store: String, environment: [String: String]) throws(PrivateFile.Problem) {
        try PrivateFile.write(Array((command + "\n").utf8), to: path(of: store, environment: environment), replace: true, privateFolder: true)
    }

    /// The resolvers a running Baton program gives its stores: each reads the store's saved
    /// command when a conflict comes, and runs it.
    package static func resolvers(environment: [String: String]) -> @MainActor (String) -> KeyValueResolver? {
        { store in
            { conflict in
                let command: String?
                do throws(PrivateFile.Problem) {
                    command = try saved(for: store, environment: environment)
                } catch {
                    throw ResolverSilence(sentence: error.sentence("resolve command", path: path(of: store, environment: environment)))
                }
                guard let command else {
                    throw ResolverSilence(
                        sentence: "no resolve command is set for the store \(store) on this machine (baton kv policy resolve --command CMD)")
                }
                return try await ResolveCommand(command).resolve(conflict)
            }
        }
    }
}
