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

/// Carries sealed datagrams between peers: multicast on a LAN, or memory in tests.
///
/// A transport knows nothing of activities or keys; it moves opaque bytes.
public protocol ActivityTransport: Sendable {
    /// Sends one datagram to every peer in the group.
    func send(_ bytes: [UInt8]) async throws
    /// Every datagram that arrives, in arrival order, until the transport is closed.
    var incoming: AsyncStream<ReceivedDatagram> { get }
    /// Hands one datagram to the transport's own thread without waiting, in call order, and
    /// reports a failure to `failed` (from any thread). False when the transport has no
    /// such path: the caller then queues the datagram for `send`.
    func post(_ bytes: [UInt8], failed: @escaping @Sendable (String) -> Void) -> Bool
    /// Hands every datagram that arrives to `receiver` instead of `incoming`, one at a time,
    /// in arrival order, on whatever thread the transport receives on. Call it once.
    func deliverIncoming(to receiver: @escaping @Sendable (ReceivedDatagram) -> Void)
    /// Stops sending and receiving; `incoming` finishes.
    func close() async
    /// A short description for status lines and errors, e.g. `239.255.77.88:47788 on eth0`.
    var endpointDescription: String { get }
}

extension ActivityTransport {
    /// No path without waiting: callers queue for `send`.
    public func post(_ bytes: [UInt8], failed: @escaping @Sendable (String) -> Void) -> Bool { false }

    /// Reads `incoming` on a task of its own; a transport with a thread of its own does better.
    public func deliverIncoming(to receiver: @escaping @Sendable (ReceivedDatagram) -> Void) {
        let incoming = incoming
        Task.detached {
            for await datagram in incoming { receiver(datagram) }
        }
    }
}
