/// Why a received datagram was dropped; each has its own counter in `ReceiveStatistics`.
public enum RejectionReason: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// Shorter than the 42-byte header and the 16-byte tag.
    case tooShort
    /// The first four bytes are not `BTN1`.
    case badMagic
    /// The kind byte is not 1–5.
    case unknownKind
    /// The ciphertext is longer than the largest plaintext allows; dropped before decrypting.
    case tooLarge
    /// ChaCha20-Poly1305 did not verify: another key, or bytes changed on the way.
    case authenticationFailed
    /// The plaintext is not a binary plist within the protocol's limits.
    case malformedPayload
    /// The plaintext plist's root is not a dictionary.
    case notADictionary
    /// A required payload key is absent.
    case missingKey
    /// A payload key has the wrong plist type.
    case wrongType
    /// A value is outside what the protocol allows: an activity id that is not a UUID, a type that
    /// is not reverse-DNS, a revision below 1, a webpage URL that is not http(s), an OFFER's size,
    /// digest or port.
    case invalidValue
    /// The sequence is not above the highest already accepted from that sender.
    case replay
    /// `sentAt` is too far from this machine's clock.
    case clockSkew
    /// The sender id is bound to another source address (see `SenderTable`).
    case wrongSource
    /// An ANNOUNCE, OFFER or WITHDRAW for an activity that another sender announced and still owns.
    case notOwner

    public var description: String {
        switch self {
        case .tooShort: "shorter than a header and tag"
        case .badMagic: "wrong magic"
        case .unknownKind: "unknown kind"
        case .tooLarge: "over the size limit"
        case .authenticationFailed: "failed authentication (wrong key or altered)"
        case .malformedPayload: "payload is not a valid binary plist"
        case .notADictionary: "payload is not a dictionary"
        case .missingKey: "a required key is missing"
        case .wrongType: "a key has the wrong type"
        case .invalidValue: "a value is out of its range"
        case .replay: "replayed or reordered (old sequence)"
        case .clockSkew: "sentAt too far from this clock"
        case .wrongSource: "sender id used from another address"
        case .notOwner: "activity belongs to another sender"
        }
    }
}
