import FoundationEssentials

/// How a datagram reached this peer.
public enum DatagramPath: String, Sendable, Equatable {
    /// Sent to the multicast group.
    case multicast
    /// Sent to this host's address by a peer that lists it, or that learnt it.
    case unicast
    /// Through a relay (an MQTT broker): no source address that could be answered or dialled.
    case relay
    /// The transport does not say (the in-memory network, datagrams handed in by hand).
    case unspecified
}

/// One datagram as it arrived, with where it came from when the transport knows.
public struct ReceivedDatagram: Sendable {
    /// The bytes exactly as received.
    public var bytes: [UInt8]
    /// A printable source address (`192.0.2.7:47788`), or nil when the transport has none.
    /// A relay gives a name that can be dialled only through that relay (`relay:…`).
    public var source: String?
    /// How it arrived.
    public var path: DatagramPath

    public init(bytes: [UInt8], source: String? = nil, path: DatagramPath = .unspecified) {
        self.bytes = bytes
        self.source = source
        self.path = path
    }
}

/// What the receiver made of one datagram, as far as the transport needs to know: whether it
/// authenticated under the group key and was accepted as new (not a duplicate or replay). A
/// transport may learn a unicast peer from an accepted datagram, never from anything else.
public enum DatagramVerdict: Sendable, Equatable {
    case accepted
    case notAccepted
}

/// What a transport calls back: each datagram that arrives, each send that failed, and each
/// change of its paths (multicast joined or not, a relay connected or not).
///
/// All run on the transport's own thread, one call at a time, so they must be quick: the
/// `ActivityCenter` checks and decodes there and hops to the main actor only for news.
public struct TransportHandler: Sendable {
    /// Takes one datagram and says whether it was accepted.
    public var deliver: @Sendable (ReceivedDatagram) -> DatagramVerdict
    public var sendFailed: @Sendable (TransportError) -> Void
    public var statusChanged: @Sendable (TransportStatus) -> Void

    /// A handler that says what it made of each datagram: transports learn peers from it.
    public init(
        deliver: @escaping @Sendable (ReceivedDatagram) -> DatagramVerdict,
        sendFailed: @escaping @Sendable (TransportError) -> Void = { _ in },
        statusChanged: @escaping @Sendable (TransportStatus) -> Void = { _ in }
    ) {
        self.deliver = deliver
        self.sendFailed = sendFailed
        self.statusChanged = statusChanged
    }

    /// A handler that only listens (a monitor, a test): nothing it hears counts as accepted.
    public init(
        receive: @escaping @Sendable (ReceivedDatagram) -> Void,
        sendFailed: @escaping @Sendable (TransportError) -> Void = { _ in },
        statusChanged: @escaping @Sendable (TransportStatus) -> Void = { _ in }
    ) {
        self.init(
            deliver: { datagram in
                receive(datagram)
                return .notAccepted
            }, sendFailed: sendFailed, statusChanged: statusChanged)
    }

    /// Hands one datagram on, dropping the verdict.
    public func receive(_ datagram: ReceivedDatagram) {
        _ = deliver(datagram)
    }
}

/// Carries sealed datagrams between peers: the seam between the protocol and the network.
///
/// One way in, one way out: `start` installs the handler every datagram goes to, `send` hands
/// one datagram over without waiting. A transport knows nothing of activities or keys; it
/// moves opaque bytes. Implementations: `MulticastTransport` (the LAN: multicast and unicast),
/// `RelayTransport` (an MQTT broker), `TransportSet` (several at once), `OfflineTransport`
/// (no network), and `InMemoryNetwork`'s transports in `HandoffTesting`.
public protocol ActivityTransport: AnyObject, Sendable {
    /// Delivers every datagram that arrives from now on, every failed send, and every change
    /// of status to `handler`. Call it once, before the first `send`.
    func start(_ handler: TransportHandler)
    /// Hands one datagram to every peer without waiting. Datagrams sent from one thread leave
    /// in call order and before a later `close()`; a failure reaches the handler's `sendFailed`.
    func send(_ bytes: [UInt8])
    /// Stops sending and receiving; sends after it fail with `.closed`.
    func close() async
    /// A short description for status lines and errors, e.g. `239.255.77.88:47788 on eth0`.
    var endpointDescription: String { get }
    /// Its paths as they are now; changes also reach the handler's `statusChanged`.
    var status: TransportStatus { get }
}

extension ActivityTransport {
    /// A transport with one path that is always up says nothing about it.
    public var status: TransportStatus { TransportStatus() }
}
