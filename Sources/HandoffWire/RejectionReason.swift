/// Why a received datagram was dropped; each has its own counter in `ReceiveStatistics`.
public enum RejectionReason: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// Shorter than a header, signature and tag (version 3: 114 bytes; version 2: 58).
    case tooShort
    /// The first four bytes are neither `BTN3` nor `BTN1`.
    case badMagic
    /// Version 3: the first four bytes are `BTN1`, a version 1 or 2 peer's datagram.
    case oldProtocol
    /// The kind byte is not 1–6 (version 2: 1–5).
    case unknownKind
    /// Version 3: the sender id's tag is not a listed device's, or that device is removed.
    case unknownDevice
    /// The ciphertext is longer than the largest plaintext allows; dropped before decrypting.
    case tooLarge
    /// ChaCha20-Poly1305 did not verify: another key, or bytes changed on the way.
    case authenticationFailed
    /// Version 3: the signature inside the sealed part is not the listed device's.
    case badSignature
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
    /// Version 2 only: the sender id is bound to another source address (see `SenderTable`).
    /// Version 3 binds no address; this goes when `Handoff` speaks version 3.
    case wrongSource
    /// An ANNOUNCE, OFFER or WITHDRAW for an activity that another sender announced and still owns.
    case notOwner

    public var description: String {
        switch self {
        case .tooShort: "shorter than a header and tag"
        case .badMagic: "wrong magic"
        case .oldProtocol: "an older protocol (version 1 or 2)"
        case .unknownKind: "unknown kind"
        case .unknownDevice: "from a device not listed"
        case .tooLarge: "over the size limit"
        case .authenticationFailed: "failed authentication (wrong key or altered)"
        case .badSignature: "signature is not the listed device's"
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
