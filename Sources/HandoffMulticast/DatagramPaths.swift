import Dispatch
import Handoff
import NIOCore
import NIOPosix

/// The sockets of one `MulticastTransport` and the destinations they reach, kept on its event
/// loop: every property is read and written only on `loop`.
///
/// Multicast is one destination among several, not the socket:
/// - the *main* socket (bound to `0.0.0.0:port`) receives, joins the group when it can, and
///   sends the unicast copies to listed and learnt peers;
/// - the *multicast* socket, bound to the same port (so every copy carries one source address
///   and port), sends to the group only. A firewall that refuses multicast, a missing route or
///   an interface without the MULTICAST flag costs this socket and nothing else.
///
/// SwiftNIO closes a datagram channel on most send errors (EPERM, ENETUNREACH, EADDRNOTAVAIL).
/// A closed main socket is opened again at once and the failing destination held back
/// (`SendBackoff`); a closed multicast socket marks multicast unavailable until the interfaces
/// change or a retry works. The interfaces are looked at when the kernel says they changed
/// (`InterfaceEvents`), so a new lease, a VPN going up or down or a cable plugged in is followed:
/// the group is joined again on the interface as it now is, and the status says so. Without that
/// word (netlink refused, or its socket closed on an overrun) they are looked at every second.
final class DatagramPaths: @unchecked Sendable {
    /// How often the interfaces are looked at without the kernel's word on their changes.
    static let watchInterval: TimeAmount = .seconds(1)
    /// How often they are looked at with it all the same: a change the kernel does not announce
    /// (a device's flags alone) is seen within this.
    static let slowLook: TimeAmount = .seconds(30)
    /// From a change heard to the look: the burst of messages one change makes (a lease's new
    /// address, its route, the old address gone) ends first.
    static let settle: TimeAmount = .milliseconds(50)
    /// The least time between two looks that changes heard ask for: a host whose routes churn
    /// costs at most four looks a second.
    static let eventSpacing: TimeAmount = .milliseconds(250)
    /// The first retry of an unavailable multicast path without any change seen; doubles to `longestRetry`.
    static let firstRetry: TimeAmount = .seconds(2)
    static let longestRetry: TimeAmount = .seconds(30)

    let loop: any EventLoop
    let configuration: MulticastConfiguration
    let group: SocketAddress
    let state: TransportState
    var listed: [(key: String, address: SocketAddress)]
    /// Listed peers whose names did not resolve yet, tried again every `resolveInterval`.
    var unresolved: [UnicastPeerEntry]
    let resolver: UnicastPeers.Resolver
    let resolveInterval: TimeAmount
    var nextResolve: NIODeadline
    var resolving = false

    var main: (any Channel)?
    var mainGeneration = 0
    var mainProblem: String?
    var mainReopenDelay: TimeAmount = .milliseconds(20)
    var multicastSender: (any Channel)?
    var senderGeneration = 0
    var choice: InterfaceChoice?
    var joinedDevice: NIONetworkDevice?
    var isJoined = false
    /// Why multicast does not work, or nil when it does (or has not been seen failing).
    var multicastProblem: String? = nil
    /// The reason of the last failed multicast send, for when the channel closes over it.
    var lastSendFailure: String?
    /// Whether `multicastProblem` came from a failed send: then only a send that goes through
    /// shows that multicast works again, since setting the socket up succeeds all the same.
    var problemFromSend = false
    var retryDelay = DatagramPaths.firstRetry
    var nextRetry = NIODeadline.distantFuture
    var signature = ""
    var learned = LearnedPeers()
    var backoff = SendBackoff()
    /// The next look at the interfaces, and when it is due.
    var look: Scheduled<Void>?
    var lookAt = NIODeadline.distantFuture
    var lastLook = NIODeadline.now()
    /// How many looks were made (for tests).
    var looks = 0
    /// The kernel's word on interface changes, while subscribed.
    var events: (any Channel)?
    var subscribing = false
    var isClosing = false

    init(
        loop: any EventLoop, configuration: MulticastConfiguration, group: SocketAddress, state: TransportState,
        listed: [(key: String, address: SocketAddress)], resolver: @escaping UnicastPeers.Resolver = UnicastPeers.resolveIPv4,
        resolveInterval: TimeAmount = .seconds(Int64(UnicastPeers.retryInterval))
    ) {
        self.loop = loop
        self.configuration = configuration
        self.group = group
        self.state = state
        self.listed = listed
        self.unresolved = configuration.unresolvedPeers
        self.resolver = resolver
        self.resolveInterval = resolveInterval
        self.nextResolve = .now() + resolveInterval
    }

    // MARK: Start and close

    /// Resolves the interface, binds the main socket and sets up multicast. Only what no network
    /// change can fix fails: an interface name that does not exist, the port held without
    /// `SO_REUSEADDR`. Everything else leaves multicast unavailable and unicast working.
    func start() -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        // Subscribed before the first look: a change after it is heard.
        let subscribed = subscribe()
        do {
            choice = try InterfaceChoice.resolve(named: configuration.interface, group: group)
        } catch {
            switch error {
            case .interfaceNotFound, .interfacesUnavailable: return loop.makeFailedFuture(error)
            default: multicastUnavailable(Self.shortReason(error))
            }
        }
        signature = Self.interfaceSignature(group: group)
        return bindMain()
            .flatMapError { error in
                self.loop.makeFailedFuture(
                    MulticastError.bindFailed(port: self.configuration.port, reason: MulticastError.reason(for: error)))
            }
            .flatMap { channel in
                self.adoptMain(channel)
                return self.setUpMulticast()
            }
            .flatMap { subscribed }
            .map {
                self.scheduleLook(at: self.nextLookDeadline())
                self.publish()
            }
    }

    /// Closes both sockets; nothing is opened again after this.
    func close() -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        isClosing = true
        look?.cancel()
        look = nil
        let channels = [main, multicastSender, events].compactMap { $0 }
        events = nil
        main = nil
        multicastSender = nil
        return EventLoopFuture.andAllComplete(channels.map { $0.close() }, on: loop)
    }

    // MARK: Sending

    /// Sends one datagram to the group (when multicast works) and to every listed and learnt
    /// peer not held back, in that order, and flushes.
    func send(_ bytes: [UInt8]) {
        loop.preconditionInEventLoop()
        guard !isClosing else { return }
        let now = NIODeadline.now()
        var buffer: ByteBuffer?
        func data(_ channel: any Channel) -> ByteBuffer {
            if let buffer { return buffer }
            let made = channel.allocator.buffer(bytes: bytes)
            buffer = made
            return made
        }
        if let sender = multicastSender, sender.isActive {
            let promise = loop.makePromise(of: Void.self)
            let generation = senderGeneration
            promise.futureResult.whenComplete { result in self.multicastSent(result, generation: generation) }
            sender.writeAndFlush(AddressedEnvelope(remoteAddress: group, data: data(sender)), promise: promise)
        }
        guard let main, main.isActive else { return }
        var wrote = false
        for peer in listed + learned.current(at: now) where backoff.allows(peer.key, at: now) {
            let promise = loop.makePromise(of: Void.self)
            let key = peer.key
            promise.futureResult.whenComplete { result in self.unicastSent(result, to: key) }
            main.write(AddressedEnvelope(remoteAddress: peer.address, data: data(main)), promise: promise)
            wrote = true
        }
        if wrote { main.flush() }
    }

    private func multicastSent(_ result: Result<Void, any Error>, generation: Int) {
        switch result {
        case .success:
            state.sent()
            if generation == senderGeneration, multicastProblem != nil {
                // A retry went through: multicast works again.
                multicastProblem = nil
                problemFromSend = false
                retryDelay = Self.firstRetry
                publish()
            }
        case .failure(ChannelError.ioOnClosedChannel):
            break
        case .failure(let error):
            lastSendFailure = Self.sendReason(error)
            if generation == senderGeneration, multicastSender?.isActive ?? false {
                // An error SwiftNIO recovers from (EMSGSIZE): this datagram only.
                state.handler?.sendFailed(
                    .sendFailed(
                        destination: "\(configuration.group):\(configuration.port)",
                        reason: MulticastError.reason(for: error)))
            }
        }
    }

    private func unicastSent(_ result: Result<Void, any Error>, to key: String) {
        switch result {
        case .success:
            state.sentUnicast()
            backoff.succeeded(key)
        case .failure(ChannelError.ioOnClosedChannel):
            break  // another destination's error closed the socket; it is opened again
        case .failure(let error):
            if backoff.failed(key, at: .now()) {
                state.handler?.sendFailed(.sendFailed(destination: key, reason: MulticastError.reason(for: error)))
            }
        }
    }

    // MARK: Names that did not resolve

    /// Resolves the listed names that did not resolve yet, once `resolveInterval` has passed since
    /// the last try, on a thread of its own (`getaddrinfo` blocks): those that resolve are sent
    /// to from then on.
    func resolveUnresolvedIfDue() {
        loop.preconditionInEventLoop()
        guard !unresolved.isEmpty, !resolving, !isClosing, NIODeadline.now() >= nextResolve else { return }
        resolving = true
        let entries = unresolved
        let resolver = resolver
        let port = configuration.port
        DispatchQueue.global().async {
            let resolution = UnicastPeers.resolveSkipping(entries, defaultPort: port, resolver: resolver)
            self.loop.execute { self.resolved(resolution) }
        }
    }

    private func resolved(_ resolution: UnicastPeers.Resolution) {
        resolving = false
        nextResolve = .now() + resolveInterval
        guard !isClosing else { return }
        unresolved = resolution.unresolved.map(\.entry)
        if !unresolved.isEmpty { scheduleLook(at: nextLookDeadline()) }
        var added = false
        for peer in resolution.peers where !listed.contains(where: { $0.key == peer.description }) {
            guard let address = try? SocketAddress(ipAddress: peer.address, port: peer.port) else { continue }
            listed.append((peer.description, address))
            added = true
        }
        if added { publish() }
    }

    // MARK: Learning

    /// An accepted datagram arrived by unicast from `address` (`key`: as the handler described it):
    /// send to it from now on.
    func learn(_ address: SocketAddress, key: String) {
        loop.preconditionInEventLoop()
        guard !listed.contains(where: { $0.key == key }) else { return }
        if learned.heard(address, key: key, at: .now()) {
            state.learnt()
            publish()
        }
    }
}
