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
    /// Hands every datagram that arrives to `receiver` instead of `incoming`, one at a time,
    /// in arrival order, on whatever thread the transport receives on. Call it once.
    func deliverIncoming(to receiver: @escaping @Sendable (ReceivedDatagram) -> Void)
    /// Stops sending and receiving; `incoming` finishes.
    func close() async
    /// A short description for status lines and errors, e.g. `239.255.77.88:47788 on eth0`.
    var endpointDescription: String { get }
}

extension ActivityTransport {
    /// Reads `incoming` on a task of its own; a transport with a thread of its own does better.
    public func deliverIncoming(to receiver: @escaping @Sendable (ReceivedDatagram) -> Void) {
        let incoming = incoming
        Task.detached {
            for await datagram in incoming { receiver(datagram) }
        }
    }
}
