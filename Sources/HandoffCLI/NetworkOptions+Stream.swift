import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffWire
import NIOCore

extension NetworkOptions {
    /// Starts the TCP server that serves this peer's large activities, on `--stream-port`
    /// (any free port by default), and returns what the activity center needs of it. Its
    /// connections are read on `group`'s threads (NIO's shared group when nil).
    @MainActor
    public func startStateStream(membership: Membership, senderID: SenderID, group: (any EventLoopGroup)? = nil) async throws
        -> (setup: StateStreamSetup, server: TCPStateServer)
    {
        let port = try stateStreamPort()
        let shelf = StateShelf()
        do {
            let identity = membership.streamIdentity(senderID: senderID)
            let server = if let group {
                try await TCPStateServer.start(shelf: shelf, identity: identity, trust: membership.streamTrust, port: port, group: group)
            } else {
                try await TCPStateServer.start(shelf: shelf, identity: identity, trust: membership.streamTrust, port: port)
            }
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
