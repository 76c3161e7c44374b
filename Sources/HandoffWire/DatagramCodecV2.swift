import FoundationEssentials
import PropertyList

/// A datagram after it was opened and decoded.
public struct DecodedDatagramV2: Equatable, Sendable {
    public var header: DatagramHeaderV2
    public var message: HandoffMessage
    public var sentAt: Date
}

/// Version 2 (`BTN1`, one key for the group, random nonces): turns messages into sealed
/// datagrams and back. Kept while `Handoff` still speaks it; version 3 is `DatagramCodec`.
///
/// The stateful rules — sequence (replay) and own sender id — belong to whoever keeps
/// per-sender state (`ActivityCenter`).
public struct DatagramCodecV2: Sendable {
    public let cipher: GroupKeyCipherV2
    public var readerLimits: BinaryPropertyListReader.Limits
    /// How far `sentAt` may be from the receiver's clock.
    public var allowedClockSkew: TimeInterval

    public init(groupKey: GroupKey, allowedClockSkew: TimeInterval = 60) {
        cipher = GroupKeyCipherV2(groupKey: groupKey)
        readerLimits = BinaryPropertyListReader.Limits()
        self.allowedClockSkew = allowedClockSkew
    }

    /// The canonical binary-plist payload of a message.
    public static func plaintext(_ message: HandoffMessage, sentAt: Date) -> [UInt8] {
        BinaryPropertyListWriter().write(.dictionary(message.payload(sentAt: sentAt)))
    }

    /// Encodes and seals a message; refuses a payload over the size limit.
    public func encode(
        _ message: HandoffMessage, senderID: SenderID, sequence: UInt64, sentAt: Date,
        nonce: [UInt8] = GroupKeyCipherV2.randomNonce()
    ) throws(SealError) -> [UInt8] {
        let header = DatagramHeaderV2(kind: message.kind, senderID: senderID, sequence: sequence, nonce: nonce)
        return try cipher.seal(header: header, plaintext: Self.plaintext(message, sentAt: sentAt))
    }

    /// Opens and decodes a datagram, or says which receiving rule it broke.
    public func decode(_ datagram: [UInt8], now: Date) throws(RejectionReason) -> DecodedDatagramV2 {
        let (header, plaintext) = try cipher.open(datagram)
        let root: PropertyListValue
        do {
            root = try BinaryPropertyListReader(limits: readerLimits).read(plaintext)
        } catch {
            throw .malformedPayload
        }
        guard case .dictionary(let payload) = root else { throw .notADictionary }
        let (message, sentAt) = try HandoffMessage.decode(kind: header.kind, payload: payload)
        guard abs(sentAt.timeIntervalSince(now)) <= allowedClockSkew else { throw .clockSkew }
        return DecodedDatagramV2(header: header, message: message, sentAt: sentAt)
    }
}
