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
/// change or a retry works. The interfaces are looked at every second, so a new lease, a VPN
/// going up or down or a cable plugged in is followed: the group is joined again on the
/// interface as it now is, and the status says so.
final class DatagramPaths: @unchecked Sendable {
    /// How often the interfaces are looked at.
    static let watchInterval: TimeAmount = .seconds(1)
    /// The first retry of an unavailable multicast path without any change seen; doubles to `longestRetry`.
    static let firstRetry: TimeAmount = .seconds(2)
    static let longestRetry: TimeAmount = .seconds(30)

    let loop: any EventLoop
    let configuration: MulticastConfiguration
    let group: SocketAddress
    let state: TransportState
    private let listed: [(key: String, address: SocketAddress)]

    private var main: (any Channel)?
    private var mainGeneration = 0
    private var mainProblem: String?
    private var mainReopenDelay: TimeAmount = .milliseconds(20)
    private var multicastSender: (any Channel)?
    private var senderGeneration = 0
    private var choice: InterfaceChoice?
    private var joinedDevice: NIONetworkDevice?
    private var isJoined = false
    /// Why multicast does not work, or nil when it does (or has not been seen failing).
    private var multicastProblem: String? = nil
    /// The reason of the last failed multicast send, for when the channel closes over it.
    private var lastSendFailure: String?
    /// Whether `multicastProblem` came from a failed send: then only a send that goes through
    /// shows that multicast works again, since setting the socket up succeeds all the same.
    private var problemFromSend = false
    private var retryDelay = DatagramPaths.firstRetry
    private var nextRetry = NIODeadline.distantFuture
    private var signature = ""
    private var learned = LearnedPeers()
    private var backoff = SendBackoff()
    private var watcher: RepeatedTask?
    private var isClosing = false

    init(
        loop: any EventLoop, configuration: MulticastConfiguration, group: SocketAddress, state: TransportState,
        listed: [(key: String, address: SocketAddress)]
    ) {
        self.loop = loop
        self.configuration = configuration
        self.group = group
        self.state = state
        self.listed = listed
    }

    // MARK: Start and close

    /// Resolves the interface, binds the main socket and sets up multicast. Only what no network
    /// change can fix fails: an interface name that does not exist, the port held without
    /// `SO_REUSEADDR`. Everything else leaves multicast unavailable and unicast working.
    func start() -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
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
            .map {
                self.watcher = self.loop.scheduleRepeatedTask(
                    initialDelay: Self.watchInterval, delay: Self.watchInterval
                ) { _ in self.watch() }
                self.publish()
            }
    }

    /// Closes both sockets; nothing is opened again after this.
    func close() -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        isClosing = true
        watcher?.cancel()
        let channels = [main, multicastSender].compactMap { $0 }
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

    // MARK: Learning

    /// An accepted datagram arrived by unicast from `address`: send to it from now on.
    func learn(_ address: SocketAddress) {
        loop.preconditionInEventLoop()
        let key = DatagramInboundHandler.describe(address)
        guard !listed.contains(where: { $0.key == key }) else { return }
        if learned.heard(address, key: key, at: .now()) {
            state.learnt()
            publish()
        }
    }

    // MARK: The sockets

    private func bootstrap() -> DatagramBootstrap {
        let state = state
        let groupIP = group.ipAddress
        return DatagramBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            // Room for a burst while the thread is busy (the kernel caps it at net.core.rmem_max).
            .channelOption(.socketOption(.so_rcvbuf), value: MulticastTransport.socketReceiveBufferSize)
            .channelOption(
                .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: MulticastTransport.receiveBufferSize)
            )
            // The destination address tells a multicast copy from a unicast one.
            .channelOption(.receivePacketInfo, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramInboundHandler(state: state, groupIP: groupIP, learn: { [weak self] in self?.learn($0) }))
                }
            }
    }

    private func bindMain() -> EventLoopFuture<any Channel> {
        bootstrap().bind(to: anyAddress).flatMap { channel in
            #if os(Linux)
            // Without this Linux hands the socket every group joined by anyone on the host on this port.
            channel.setOption(Self.multicastAll, value: 0).map { channel }
            #else
            self.loop.makeSucceededFuture(channel)
            #endif
        }
    }

    private var anyAddress: SocketAddress {
        // The configuration was validated: this cannot fail.
        try! SocketAddress(ipAddress: "0.0.0.0", port: configuration.port)
    }

    #if os(Linux)
    private static let multicastAll = ChannelOptions.Types.SocketOption(
        level: .ip, name: .init(rawValue: IP_MULTICAST_ALL))
    #endif

    private func adoptMain(_ channel: any Channel) {
        mainGeneration += 1
        let generation = mainGeneration
        main = channel
        mainProblem = nil
        isJoined = false
        channel.closeFuture.whenComplete { _ in self.mainClosed(generation: generation) }
    }

    /// The main socket closed under us (a send error): open it again, join again.
    private func mainClosed(generation: Int) {
        guard !isClosing, generation == mainGeneration else { return }
        main = nil
        mainProblem = "reopening the socket"
        publish()
        let delay = mainReopenDelay
        mainReopenDelay = min(mainReopenDelay * 2, .seconds(2))
        loop.scheduleTask(in: delay) { self.reopenMain() }
    }

    private func reopenMain() {
        guard !isClosing, main == nil else { return }
        bindMain().whenComplete { result in
            switch result {
            case .success(let channel):
                guard !self.isClosing else {
                    channel.close(promise: nil)
                    return
                }
                self.state.reopened()
                self.mainReopenDelay = .milliseconds(20)
                self.adoptMain(channel)
                self.setUpMulticast().whenComplete { _ in self.publish() }
            case .failure(let error):
                self.mainProblem = "cannot bind port \(self.configuration.port): \(MulticastError.reason(for: error))"
                self.publish()
                self.loop.scheduleTask(in: self.mainReopenDelay) { self.reopenMain() }
            }
        }
    }

    // MARK: Multicast

    /// Joins the group on the main socket and opens the multicast socket, on the interface as
    /// chosen now. Never fails: what goes wrong becomes `multicastProblem`.
    private func setUpMulticast() -> EventLoopFuture<Void> {
        guard !isClosing, let main, let choice else {
            closeSender()
            return loop.makeSucceededVoidFuture()
        }
        guard let multicast = main as? any MulticastChannel else {
            multicastUnavailable("the socket offers no multicast options")
            return loop.makeSucceededVoidFuture()
        }
        let leave: EventLoopFuture<Void> =
            isJoined
            ? multicast.leaveGroup(group, device: joinedDevice).flatMapErrorWithEventLoop { _, loop in
                loop.makeSucceededVoidFuture()
            }
            : loop.makeSucceededVoidFuture()
        return leave.flatMap {
            self.isJoined = false
            return multicast.joinGroup(self.group, device: choice.device)
        }
        .flatMapError { error in
            // Already a member on this interface (its address changed, the interface did not): fine.
            if let io = error as? IOError, io.errnoCode == EADDRINUSE { return self.loop.makeSucceededVoidFuture() }
            return self.loop.makeFailedFuture(error)
        }
        .flatMap {
            self.isJoined = true
            self.joinedDevice = choice.device
            return self.openSender(choice)
        }
        .flatMapErrorWithEventLoop { error, loop in
            self.multicastUnavailable(Self.joinReason(error, interface: choice.name, named: choice.device != nil))
            return loop.makeSucceededVoidFuture()
        }
    }

    private func openSender(_ choice: InterfaceChoice) -> EventLoopFuture<Void> {
        closeSender()
        return bindMain().flatMap { channel in
            guard let options = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                return self.loop.makeFailedFuture(ChannelError.operationUnsupported)
            }
            var steps = [
                options.setIPMulticastTTL(CUnsignedChar(self.configuration.ttl)),
                options.setIPMulticastLoop(self.configuration.loopback ? 1 : 0),
            ]
            if let address = choice.address { steps.append(options.setIPMulticastIF(address)) }
            return EventLoopFuture.andAllSucceed(steps, on: self.loop)
                .flatMapError { error in
                    channel.close(promise: nil)
                    return self.loop.makeFailedFuture(error)
                }
                .map {
                    self.senderGeneration += 1
                    let generation = self.senderGeneration
                    self.multicastSender = channel
                    channel.closeFuture.whenComplete { _ in self.senderClosed(generation: generation) }
                    if !self.problemFromSend { self.multicastProblem = nil }
                }
        }
    }

    private func closeSender() {
        senderGeneration += 1
        multicastSender?.close(promise: nil)
        multicastSender = nil
    }

    /// A send error closed the multicast socket: multicast is unavailable until a retry works.
    private func senderClosed(generation: Int) {
        guard !isClosing, generation == senderGeneration else { return }
        multicastSender = nil
        multicastUnavailable(lastSendFailure ?? "the multicast socket closed", bySend: true)
    }

    private func multicastUnavailable(_ reason: String, bySend: Bool = false) {
        multicastProblem = reason
        problemFromSend = bySend
        nextRetry = .now() + retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetry)
        publish()
    }

    /// Every second: when the interfaces changed, or a retry is due, set multicast up again.
    private func watch() {
        guard !isClosing else { return }
        let now = NIODeadline.now()
        let current = Self.interfaceSignature(group: group)
        let changed = current != signature
        signature = current
        let retry = multicastProblem != nil && now >= nextRetry
        guard changed || retry else { return }
        if changed {
            // A new address or route: try at once, and soon again if that fails.
            retryDelay = Self.firstRetry
            problemFromSend = false
        }
        nextRetry = now + retryDelay
        retryDelay = min(retryDelay * 2, Self.longestRetry)
        do {
            choice = try InterfaceChoice.resolve(named: configuration.interface, group: group)
        } catch {
            choice = nil
            closeSender()
            multicastUnavailable(Self.shortReason(error))
            return
        }
        guard main != nil else { return }  // reopening: it sets multicast up when bound
        setUpMulticast().whenComplete { _ in self.publish() }
    }

    // MARK: Status

    /// Tells the handler when the status changed.
    private func publish() {
        let paths = TransportStatus(paths: [
            .init(
                kind: .multicast, state: multicastProblem.map { .down(reason: $0) } ?? .up,
                detail: "\(configuration.group):\(configuration.port) on \(choice?.name ?? configuration.interface ?? "the default interface")"
                    + (choice?.addressText.map { " (\($0))" } ?? "")
            ),
            .init(
                kind: .unicast, state: mainProblem.map { .down(reason: $0) } ?? .up,
                detail: Self.unicastDetail(listed: listed.count, learnt: learned.count)),
        ])
        state.update(paths, interfaceName: choice?.name)?.statusChanged(paths)
    }

    static func unicastDetail(listed: Int, learnt: Int) -> String {
        func count(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word) peer" : "\(n) \(word) peers" }
        return "to \(count(listed, "listed")), \(count(learnt, "learnt"))"
    }
}
