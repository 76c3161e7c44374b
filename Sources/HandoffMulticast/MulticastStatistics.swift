/// Counts of what one `MulticastTransport` moved since it started.
public struct MulticastStatistics: Equatable, Sendable {
    /// Datagrams read from the socket.
    public var received: Int = 0
    /// Datagrams handed to the socket for sending.
    public var sent: Int = 0
    /// Received datagrams discarded because nobody read `incoming` fast enough.
    public var discarded: Int = 0

    /// Statistics with every count at zero.
    public init() {}
}
