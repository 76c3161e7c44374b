import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffRelay
import Logging
import HandoffWire
import BatonFiles
import BatonMembership

/// A running peer: the multicast transport and the activity center on it, from the options.
@MainActor
public final class PeerSession {
    public let center: ActivityCenter
    public let transport: MulticastTransport
    /// The relay beside the LAN, when `--relay` (or `BATON_RELAY`, or the `relay` file) names one.
    public let relay: RelayTransport?
    /// Serves this peer's large activities over TCP.
    public let stateServer: TCPStateServer
    public let keySource: GroupKey.Source
    public let peer: PeerInfo
    /// The membership's files: statements and keys the center takes are stored there, and what
    /// other processes change there is put in place (`MembershipStore.keep`).
    package let membershipStore: MembershipStore
    private var keeper: Task<Void, Never>?
    private let membership: Membership

    /// Joins the group and starts the center. Errors say what to fix. `notice` gets the
    /// sentences for the person about the membership's files (an identity just made; a
    /// `BATON_KEY` the group no longer uses): standard error unless told otherwise.
    public init(
        options: NetworkOptions, app: String, appVersion: String,
        registry: ActivityTypeRegistry? = nil, configure: (inout ActivityCenter.Configuration) -> Void = { _ in },
        logger: Logger = Logger(label: "baton", factory: { _ in SwiftLogNoOpLogHandler() }),
        notice: @escaping @Sendable (String) -> Void = Console.note
    ) async throws {
        let registry = try registry ?? options.loadRegistry()
        peer = PeerInfo.local(app: app, appVersion: appVersion, name: options.name)
        membershipStore = options.membershipStore(peer: peer)
        let loaded = try membershipStore.load()
        loaded.notices.forEach(notice)
        let keySource = loaded.keySource
        let membership = loaded.membership
        self.membership = membership
        let multicast = try options.multicastConfiguration()
        transport = try await MulticastTransport.start(multicast)
        var config = try options.centerConfiguration(peer: peer, membership: membership)
        configure(&config)
        // The sender id carries this device's tag, whatever `configure` chose for its instance.
        config.senderID = SenderID(
            tag: DeviceTag(membership.identity.publicIdentity.deviceID), instance: config.senderID.instance)!
        let stream = try await options.startStateStream(membership: membership, senderID: config.senderID)
        stateServer = stream.server
        relay = try options.startRelay(
            membership: membership, senderID: config.senderID, shelf: stream.setup.shelf, logger: logger)
        let combined = NetworkOptions.combine(lan: transport, relay: relay, stream: stream.setup)
        center = ActivityCenter(
            registry: registry, membership: membership, transport: combined.transport, configuration: config,
            stateStream: combined.stream, logger: logger)
        self.keySource = keySource
        center.start()
        let center = center
        keeper = membershipStore.keep(
            membership, reloaded: { Task { @MainActor in center.membershipReplaced() } }, notice: notice,
            failed: { problem in logger.warning("devices: \(problem)") })
    }

    /// Withdraws, closes the transport, stops serving large activities, and stores what the
    /// membership took since the last round. The WITHDRAW goes first: storing may wait on the disk
    /// (each file is written with two fsyncs), and peers should not wait with it, nor lose the
    /// WITHDRAW when a process is killed while it waits.
    public func shutdown() async {
        await center.shutdown()
        await stateServer.close()
        membershipStore.stopKeeping(keeper, membership)
    }

    /// `239.255.77.88:47788 on eth0`, and ` + mqtt://broker:1883` with a relay.
    public var endpoint: String { center.transport.endpointDescription }
}

extension NetworkOptions {
    /// The membership store for these options: `--key-file`, else `BATON_KEY`, else the
    /// default key file; this device named as `peer` is.
    package func membershipStore(peer: PeerInfo) -> MembershipStore {
        MembershipStore(keyFile: keyFile, name: peer.name)
    }
}
