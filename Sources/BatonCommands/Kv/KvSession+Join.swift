import HandoffCLI
import HandoffStore

extension KvSession {
    /// Joins the group as `baton` does with `network`'s options, then opens the session over
    /// its center with this machine's stores (`open(center:…)`); leaving shuts the peer down.
    /// The peer comes back too, for what `kv watch` says of it.
    package static func join(
        _ network: NetworkOptions, appVersion: String, store name: StoreName, machine: KvMachine = KvMachine(),
        say: @escaping (String) -> Void = Console.note
    ) async throws -> (session: KvSession, peers: PeerSession) {
        let peers = try await PeerSession(options: network, app: "baton", appVersion: appVersion)
        let session = try await open(center: peers.center, folder: machine.folder, store: name, say: say) {
            await peers.shutdown()
        }
        return (session, peers)
    }
}
