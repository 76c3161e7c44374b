/// What a `MulticastTransport` has carried so far.
public struct MulticastStatistics: Equatable, Sendable {
    /// Datagrams read from the socket.
    public var received: Int = 0
    /// Datagrams the socket took for sending.
    public var sent: Int = 0
    /// Unicast copies the socket took for sending, one per datagram and unicast peer.
    public var unicastSent: Int = 0
    /// Unicast peers learnt from accepted datagrams (PROTOCOL.md section 1).
    public var peersLearnt: Int = 0
    /// Sockets opened again after a send error closed them.
    public var socketsReopened: Int = 0
    /// Received datagrams dropped because no handler was installed yet (before `start`).
    public var discarded: Int = 0

    /// Statistics with every count at zero.
    public init() {}
}
