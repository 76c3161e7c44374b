import BatonApp
import BatonMembership
import BatonRuntime
import Handoff
import HandoffCLI
import HandoffMulticast
import HandoffWire
import Logging
import NIOCore

/// This program on the network: the membership loaded and kept in step with the files, the
/// LAN (or offline, said), the state stream, the relay when named, and the activity center on
/// them. What every command that shows or keeps a session starts with.
@MainActor
struct JoinedNetwork {
    let center: ActivityCenter
    let keySource: GroupKey.Source
    /// Where it listens, as the status bar says it.
    let endpoint: String
    let state: NetworkState
    let peer: PeerInfo
    private let membershipStore: MembershipStore
    private let keeper: Task<Void, Never>?

    /// Joins as `app`. A network that cannot be joined is an error when `mustBeOnline` (a
    /// continue needs it); otherwise the session runs offline and `state` says why. The state
    /// stream's connections are read on `streamLoop` when given.
    static func join(
        _ network: NetworkOptions, app: String, version: String, logger: Logger, mustBeOnline: Bool,
        streamLoop: (any EventLoop)? = nil, configure: (inout ActivityCenter.Configuration) -> Void = { _ in }
    ) async throws -> JoinedNetwork {
        let registry = try network.loadRegistry()
        let peer = PeerInfo.local(app: app, appVersion: version, name: network.name)
        let membershipStore = network.membershipStore(peer: peer)
        let loaded = try membershipStore.load()
        for notice in loaded.notices { logger.notice("\(notice)") }
        let membership = loaded.membership
        // A peer name that does not resolve (away from its network) is skipped and tried again: said, not fatal.
        let multicast = try network.multicastConfiguration(warn: { warning in
            Console.note(warning)
            logger.warning("\(warning)")
        })
        logger.info("key from \(loaded.keySource)")
        let transport: any ActivityTransport
        var state = NetworkState.online
        do {
            transport = try await MulticastTransport.start(multicast)
        } catch {
            switch error {
            case .interfaceNotFound, .invalidConfiguration:
                // A mistyped --interface is the person's to fix now, not a session to run offline.
                throw CommandFailure(error.description)
            default:
                if mustBeOnline { throw CommandFailure(error.description) }
            }
            // One failed join must not stop the session: run it here, unpublished, and say why.
            logger.error("network unavailable: \(error)")
            transport = OfflineTransport(reason: error.description)
            state = .offline(error.description)
        }
        let online = state == .online
        var configuration = try network.centerConfiguration(peer: peer, membership: membership)
        configure(&configuration)
        let senderID = configuration.senderID
        // The state stream serves and fetches records too large for a datagram, and carries
        // continuation streams; offline, nothing is published, so it is not started.
        let stream = online ? try await network.startStateStream(membership: membership, senderID: senderID, group: streamLoop).setup : nil
        // The relay beside the LAN, when one is named: it connects in the background.
        let relay = online
            ? try network.startRelay(membership: membership, senderID: senderID, shelf: stream!.shelf, logger: logger) : nil
        let combined = NetworkOptions.combine(lan: transport, relay: relay, stream: stream)
        // Multicast may be unavailable (no MULTICAST flag, no route, a firewall): unicast still runs.
        if online { state = Program.networkState(combined.transport.status) }
        // A machine removed from the group before this start says so from the first screen.
        if let removed = Program.removedState(membership.roster) { state = removed }
        let endpoint = online ? combined.transport.endpointDescription : "\(multicast.group):\(multicast.port)"
        logger.info("network \(endpoint)")
        let center = ActivityCenter(
            registry: registry, membership: membership, transport: combined.transport,
            configuration: configuration, stateStream: combined.stream)
        center.start()
        // Statements and keys the center takes are stored; what `baton devices remove` or
        // `baton key --new` change in the files is put in place and sent on.
        let keeper = membershipStore.keep(
            membership, reloaded: { Task { @MainActor in center.membershipReplaced() } },
            notice: { logger.warning("\($0)") }, failed: { logger.warning("devices: \($0)") })
        return JoinedNetwork(
            center: center, keySource: loaded.keySource, endpoint: endpoint, state: state, peer: peer,
            membershipStore: membershipStore, keeper: keeper)
    }

    /// Leaves the network (peers hear the WITHDRAW first), then stores what the center took
    /// since the keeper's last round.
    func leave() async {
        await center.shutdown()
        stopKeeping()
    }

    /// Stores what the center took since the keeper's last round (idempotent: a signal handler
    /// may do it first).
    func stopKeeping() {
        _ = membershipStore.stopKeeping(keeper, center.membership)
    }
}
