import Handoff
import HandoffWire
import NIOCore
import NIOPosix

/// One side of `baton pair` on SwiftNIO (docs/PROTOCOL.md, section 15): the HELLO datagrams,
/// the one TCP connection and the time limit, driving a `PairingMachine`.
///
/// `start()` opens the sockets (or, for a joiner given `--peer`, connects); from then on
/// `events` says what happened, and `answer(_:)` takes the person's reply to the code. All
/// state lives on one event loop: every method hops there, every socket is made there (so a
/// test that moved that loop's thread into a network namespace pairs inside it).
public final class PairingSession: @unchecked Sendable {
    /// Where and how long to pair.
    public struct Settings: Sendable {
        /// UDP (HELLO) and TCP (the exchange) port.
        public var port: Int
        /// The IPv4 multicast group HELLOs go to.
        public var group: String
        /// The interface to send and join on, or nil for the kernel's choice.
        public var interface: String?
        /// Joiner only: `HOST[:PORT]` of the sharer, instead of waiting for a HELLO.
        public var peer: String?
        /// Seconds for the whole pairing, answers included.
        public var timeout: Double

        public init(
            port: Int = Pairing.defaultPort, group: String, interface: String? = nil, peer: String? = nil,
            timeout: Double = Pairing.defaultTimeout
        ) {
            self.port = port
            self.group = group
            self.interface = interface
            self.peer = peer
            self.timeout = timeout
        }
    }

    /// What happened, in order; ends after the last event once the sockets are closed.
    public let events: AsyncStream<PairingEvent>
    let continuation: AsyncStream<PairingEvent>.Continuation
    let loop: any EventLoop
    let settings: Settings
    let isSharer: Bool
    /// Random, fixed for the life of this pairing: tells this side's HELLOs from another's.
    let pairingID: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    /// Joiner: writes the key, the sharer's entry and the statements; nil when they were
    /// stored, else why they could not be.
    let store: @Sendable (GroupKey, [[UInt8]]) -> String?

    // Everything below is touched on `loop` only.
    var machine: PairingMachine
    var hello: (any Channel)?
    var listener: (any Channel)?
    var connection: (any Channel)?
    /// Joiner: the pairing id of the HELLO it answered.
    var chosenPairing: [UInt8]?
    /// Joiner: where it is connecting, until the connection is made or has failed.
    var connecting: SocketAddress?
    /// Sharer: the HELLO socket closed under it and is being opened again.
    var reopeningHello = false
    var helloTimer: RepeatedTask?
    var deadlineTimer: Scheduled<Void>?
    var deadline = NIODeadline.distantFuture
    /// The last write on each socket: closing waits for them, so a final ABORT or STORED goes out.
    var lastFrameWrite: EventLoopFuture<Void>?
    var lastHelloWrite: EventLoopFuture<Void>?
    /// HELLOs heard while `start()` still opens sockets, handled once all of them are open: a
    /// side whose sockets cannot all be opened takes no part in anyone's pairing.
    var early: [(bytes: [UInt8], source: SocketAddress)]? = []
    /// A HELLO of another version was reported: it is reported once.
    var toldOtherVersion = false
    /// Set with the first `.paired`, `.failed` or `.unreachable`: from then on nothing is handled.
    var ended = false

    /// A sharer of `role`'s key and of `statements` (every statement it keeps), or a joiner,
    /// seen by the other side as `name` and `identity`; `store` is called (on the session's
    /// loop) when a joiner receives the key, with the statements to keep.
    public init(
        role: PairingMachine.Role, name: String, identity: DeviceIdentity, statements: [[UInt8]] = [],
        settings: Settings, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        store: @escaping @Sendable (GroupKey, [[UInt8]]) -> String? = { _, _ in nil }
    ) {
        self.machine = PairingMachine(role: role, name: name, identity: identity, statements: statements, clock: { SystemClock().date })
        if case .sharer = role { isSharer = true } else { isSharer = false }
        self.settings = settings
        self.loop = group.next()
        self.store = store
        let (events, continuation) = AsyncStream.makeStream(of: PairingEvent.self, bufferingPolicy: .unbounded)
        self.events = events
        self.continuation = continuation
    }

    /// Opens the HELLO socket (sharer; joiner without `--peer`) and the TCP listener (sharer),
    /// or connects to `--peer` (joiner), and starts the clock and the HELLOs. Throws
    /// `PairingSetupError` when that fails; then the session is over and `events` ends.
    public func start() async throws {
        var target: SocketAddress?
        if !isSharer, let peer = settings.peer {
            do {
                target = try PairingPeerAddress.resolve(peer, defaultPort: settings.port)
            } catch {
                continuation.finish()
                throw error
            }
        }
        let resolved = target
        try await loop.flatSubmit { self.open(connectingTo: resolved) }.get()
    }

    /// Ends the pairing because a machine in it was removed from the group (`PairingMachine.refuse`);
    /// ignored once the pairing ended.
    public func refuse(_ failure: PairingFailure) {
        loop.execute {
            guard !self.ended else { return }
            self.apply(self.machine.refuse(failure))
        }
    }

    /// Ends the pairing now as its time limit does when it passes: what the limit's timer
    /// calls. For tests, which cannot let a limit in real time race a loaded machine.
    package func expire() {
        loop.execute { self.timedOut() }
    }

    /// The person's answer to "Same code on the other screen?"; ignored once the pairing ended.
    public func answer(_ yes: Bool) {
        loop.execute {
            guard !self.ended else { return }
            self.apply(self.machine.answered(yes))
        }
    }

    private func open(connectingTo target: SocketAddress?) -> EventLoopFuture<Void> {
        let seconds = min(max(settings.timeout, 0), 1e9)
        deadline = .now() + .nanoseconds(Int64(seconds * 1e9))
        deadlineTimer = loop.scheduleTask(deadline: deadline) { self.timedOut() }
        var opened = loop.makeSucceededVoidFuture()
        if isSharer || target == nil { opened = opened.flatMap { self.openHello() } }
        if isSharer { opened = opened.flatMap { self.openListener() } }
        if let target {
            opened = opened.flatMap { self.connect(to: target) }
        }
        return opened.map {
            let heard = self.early ?? []
            self.early = nil
            for datagram in heard { self.heard(datagram.bytes, from: datagram.source) }
            guard self.isSharer, !self.ended else { return }
            self.helloTimer = self.loop.scheduleRepeatedTask(
                initialDelay: .zero, delay: .nanoseconds(Int64(Pairing.helloInterval * 1e9))
            ) { _ in self.sendHello() }
        }.flatMapError { error in
            self.ended = true
            self.closeEverything()
            return self.loop.makeFailedFuture(error)
        }
    }

    // MARK: The machine's actions

    func apply(_ actions: [PairingAction]) {
        for action in actions {
            switch action {
            case .send(let bytes):
                guard let connection else { continue }
                lastFrameWrite = connection.writeAndFlush(ByteBuffer(bytes: bytes))
            case .showCode(let code, let peerName, let peer):
                continuation.yield(.code(code, peerName: peerName, peer: peer))
            case .storeKey(let key, let statements):
                let problem = store(key, statements)
                apply(problem.map { machine.stored(problem: $0) } ?? machine.stored())
            case .paired(let peerName, let peer, let statements):
                end(.paired(peerName: peerName, peer: peer, statements: statements))
            case .failed(let failure):
                end(.failed(failure))
            }
        }
    }

    func timedOut() {
        guard !ended else { return }
        // Still connecting: say where nothing answered, not only that time ran out.
        if connection == nil, let target = connecting { return end(.unreachable(noAnswer(from: target))) }
        apply(machine.timedOut())
    }

    /// The sentence for a connection to `target` that got no answer within the time limit.
    func noAnswer(from target: SocketAddress) -> String {
        let seconds = settings.timeout == settings.timeout.rounded() ? String(Int(settings.timeout)) : String(settings.timeout)
        let port = target.port ?? settings.port
        return "Cannot reach `baton pair` at \(target.ipAddress ?? "?"):\(port): no answer within \(seconds) s "
            + "(a firewall there may drop TCP \(port); `baton doctor` there checks)."
    }

    /// The last event: stop the clocks, then close every socket once its last write is out.
    func end(_ event: PairingEvent) {
        guard !ended else { return }
        ended = true
        continuation.yield(event)
        closeEverything()
    }

    func closeEverything() {
        helloTimer?.cancel()
        deadlineTimer?.cancel()
        let writes = [lastFrameWrite, lastHelloWrite].compactMap { $0 }
        EventLoopFuture.whenAllComplete(writes, on: loop).whenComplete { _ in
            let channels = [self.hello, self.listener, self.connection].compactMap { $0 }
            let closed = channels.map { channel in
                channel.close().flatMapErrorWithEventLoop { _, loop in loop.makeSucceededVoidFuture() }
            }
            EventLoopFuture.andAllComplete(closed, on: self.loop).whenComplete { _ in self.continuation.finish() }
        }
    }

    /// `Connection refused` or `no answer within 2 s`, as a sentence ends.
    static func reason(for error: any Error) -> String {
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)) }
        if case ChannelError.connectTimeout(let timeout) = error {
            return "no answer within \(timeout.nanoseconds / 1_000_000_000) s"
        }
        return "\(error)"
    }
}
