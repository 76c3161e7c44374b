import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffWire

extension NetworkOptions {
    /// Starts the TCP server that serves this peer's large activities, on `--stream-port`
    /// (any free port by default), and returns what the activity center needs of it.
    @MainActor
    public func startStateStream(membership: Membership, senderID: SenderID) async throws
        -> (setup: StateStreamSetup, server: TCPStateServer)
    {
        let port = try stateStreamPort()
        let shelf = StateShelf()
        do {
            let server = try await TCPStateServer.start(
                shelf: shelf, identity: membership.streamIdentity(senderID: senderID), trust: membership.streamTrust,
                port: port)
            return (StateStreamSetup(shelf: shelf, port: server.port, dialer: TCPStreamDialer()), server)
        } catch {
            let fix = port == 0 ? "" : "; pick a free one with --stream-port PORT, or 0 for any"
            throw CommandFailure("Cannot serve large activities over TCP: \(error)\(fix).")
        }
    }

    /// `ActivityCenter.Configuration` for `peer` with this command line's datagram limit.
    public func centerConfiguration(peer: PeerInfo, membership: Membership) throws -> ActivityCenter.Configuration {
        var config = ActivityCenter.Configuration(
            peer: peer, senderID: .random(device: membership.identity.publicIdentity.deviceID))
        config.maximumDatagramSize = try maximumDatagramSize()
        return config
    }
}
