import Foundation

/// One datagram as it arrived, with where it came from when the transport knows.
public struct ReceivedDatagram: Sendable {
    /// The bytes exactly as received.
    public var bytes: [UInt8]
    /// A printable source address (`192.0.2.7:47788`), or nil when the transport has none.
    public var source: String?

    public init(bytes: [UInt8], source: String? = nil) {
        self.bytes = bytes
        self.source = source
    }
}

/// What a transport calls back: each datagram that arrives, and each send that failed.
///
/// Both run on the transport's own thread, one call at a time, so they must be quick: the
/// `ActivityCenter` checks and decodes there and hops to the main actor only for news.
public struct TransportHandler: Sendable {
    public var receive: @Sendable (ReceivedDatagram) -> Void
    public var sendFailed: @Sendable (TransportError) -> Void

    public init(
        receive: @escaping @Sendable (ReceivedDatagram) -> Void,
        sendFailed: @escaping @Sendable (TransportError) -> Void = { _ in }
    ) {
        self.receive = receive
        self.sendFailed = sendFailed
    }
}

/// Carries sealed datagrams between peers: the seam between the protocol and the network.
///
/// One way in, one way out: `start` installs the handler every datagram goes to, `send` hands
/// one datagram over without waiting. A transport knows nothing of activities or keys; it
/// moves opaque bytes. Implementations: `MulticastTransport` (the LAN), `OfflineTransport`
/// (no network), and `InMemoryNetwork`'s transports in `HandoffTesting`.
public protocol ActivityTransport: AnyObject, Sendable {
    /// Delivers every datagram that arrives from now on, and every failed send, to `handler`.
    /// Call it once, before the first `send`.
    func start(_ handler: TransportHandler)
    /// Hands one datagram to every peer without waiting. Datagrams sent from one thread leave
    /// in call order and before a later `close()`; a failure reaches the handler's `sendFailed`.
    func send(_ bytes: [UInt8])
    /// Stops sending and receiving; sends after it fail with `.closed`.
    func close() async
    /// A short description for status lines and errors, e.g. `239.255.77.88:47788 on eth0`.
    var endpointDescription: String { get }
}
