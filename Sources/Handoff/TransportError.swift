/// Why a transport could not send a datagram; what crosses the transport seam when a send fails.
public enum TransportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transport was closed before the datagram could go.
    case closed
    /// The datagram is larger than the transport can carry.
    case datagramTooLarge(bytes: Int, limit: Int)
    /// The operating system refused the send.
    case sendFailed(destination: String, reason: String)
    /// The transport does not reach any network (running offline).
    case offline(reason: String)

    public var description: String {
        switch self {
        case .closed:
            "The network connection is closed."
        case .datagramTooLarge(let bytes, let limit):
            "A datagram of \(bytes) bytes is over the \(limit)-byte limit."
        case .sendFailed(let destination, let reason):
            "Sending to \(destination) failed: \(reason)."
        case .offline(let reason):
            "Offline: \(reason)"
        }
    }
}
