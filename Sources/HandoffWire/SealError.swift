/// Why a message could not be sealed into a datagram.
///
/// The wire's own error, so that sealing knows nothing of the activity layer's `HandoffError`;
/// its sentence is the one `HandoffError.payloadTooLarge` gives.
public enum SealError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The plaintext is over `GroupKeyCipherV2.maximumPlaintext`.
    case payloadTooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .payloadTooLarge(let bytes, let limit):
            "The activity record is \(bytes) bytes encoded, over the \(limit)-byte limit of one datagram; make its userInfo smaller."
        }
    }
}
