import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffRelay
import Logging
import HandoffWire
import BatonFiles

extension NetworkOptions {
    /// The environment variable naming the relay.
    public static let relayVariable = "BATON_RELAY"
    /// The environment variable naming the relay's CA file.
    public static let relayCAVariable = "BATON_RELAY_CA"
    /// The file in Baton's config folder that names the relay.
    public static let relayFileName = "relay"

    /// The relay of `--relay`, else `BATON_RELAY`, else the `relay` file in Baton's config
    /// folder, with its CA file, login and client certificate (`relaySettings`); nil when none
    /// names one. A bad value is an error that says where it came from and what to write instead.
    public func relayConfiguration(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> RelayConfiguration? {
        try relaySettings(environment: environment)?.configuration
    }

    /// The relay transport, when one is named: it carries this peer's datagrams (sealed with
    /// `senderID`) through the broker and serves `shelf` through it. It connects in the
    /// background once started; an unreachable broker is its status, not an error.
    public func startRelay(
        membership: Membership, senderID: SenderID, shelf: StateShelf, logger: Logger
    ) throws -> RelayTransport? {
        guard let configuration = try relayConfiguration() else { return nil }
        do {
            return try RelayTransport(
                configuration: configuration, groupKey: membership.keys.current, senderID: senderID, shelf: shelf,
                streamIdentity: membership.streamIdentity(senderID: senderID), trust: membership.streamTrust,
                logger: logger)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// The LAN and, when there is one, the relay as one transport, and the state stream's setup
    /// that fetches through the relay what has no direct path (`relay:` sources).
    public static func combine(
        lan: any ActivityTransport, relay: RelayTransport?, stream: StateStreamSetup?
    ) -> (transport: any ActivityTransport, stream: StateStreamSetup?) {
        guard let relay else { return (lan, stream) }
        let routed = stream.map {
            StateStreamSetup(
                shelf: $0.shelf, port: $0.port, dialer: RoutingStreamDialer(direct: $0.dialer, relay: relay.streamDialer))
        }
        return (TransportSet([lan, relay]), routed)
    }
}
