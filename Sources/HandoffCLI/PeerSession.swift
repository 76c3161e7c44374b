import Foundation
import Handoff
import HandoffMulticast

/// A running peer: the multicast transport and the activity center on it, from the options.
@MainActor
public final class PeerSession {
    public let center: ActivityCenter
    public let transport: MulticastTransport
    /// Serves this peer's large activities over TCP.
    public let stateServer: TCPStateServer
    public let keySource: GroupKey.Source
    public let peer: PeerInfo

    /// Joins the group and starts the center. Errors say what to fix.
    public init(
        options: NetworkOptions, app: String, appVersion: String,
        registry: ActivityTypeRegistry? = nil, configure: (inout ActivityCenter.Configuration) -> Void = { _ in }
    ) async throws {
        let registry = try registry ?? options.loadRegistry()
        let (key, keySource) = try options.loadKey()
        let multicast = try options.multicastConfiguration()
        transport = try await MulticastTransport.start(multicast)
        let stream = try await options.startStateStream(groupKey: key)
        stateServer = stream.server
        peer = PeerInfo.local(app: app, appVersion: appVersion, name: options.name)
        var config = try options.centerConfiguration(peer: peer)
        configure(&config)
        center = ActivityCenter(
            registry: registry, groupKey: key, transport: transport, configuration: config, stateStream: stream.setup)
        self.keySource = keySource
        center.start()
    }

    /// Withdraws, closes the transport and stops serving large activities.
    public func shutdown() async {
        await center.shutdown()
        await stateServer.close()
    }

    /// `239.255.77.88:47788 on eth0`.
    public var endpoint: String { transport.endpointDescription }
}
