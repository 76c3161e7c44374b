import Foundation
import Handoff
import HandoffMulticast
import HandoffWire

extension NetworkOptions {
    /// Starts the TCP server that serves this peer's large activities, on `--stream-port`
    /// (any free port by default), and returns what the activity center needs of it.
    @MainActor
    public func startStateStream(groupKey: GroupKey) async throws -> (setup: StateStreamSetup, server: TCPStateServer) {
        let port = try stateStreamPort()
        let shelf = StateShelf()
        do {
            // Interim (issue 17): the stream's one device shared by the group key, until the
            // command passes this process's StreamIdentity and its device list as StreamTrust.
            let server = try await TCPStateServer.start(
                shelf: shelf, identity: .sharedByGroupKey(groupKey), trust: .sharedByGroupKey(groupKey), port: port)
            return (StateStreamSetup(shelf: shelf, port: server.port, dialer: TCPStreamDialer()), server)
        } catch {
            let fix = port == 0 ? "" : "; pick a free one with --stream-port PORT, or 0 for any"
            throw CommandFailure("Cannot serve large activities over TCP: \(error)\(fix).")
        }
    }

    /// `ActivityCenter.Configuration` for `peer` with this command line's datagram limit.
    public func centerConfiguration(peer: PeerInfo) throws -> ActivityCenter.Configuration {
        var config = ActivityCenter.Configuration(peer: peer)
        config.maximumDatagramSize = try maximumDatagramSize()
        return config
    }
}
