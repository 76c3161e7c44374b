import Foundation
import PropertyList

/// A datagram after it was opened and decoded.
public struct DecodedDatagram: Equatable, Sendable {
    public var header: DatagramHeader
    public var message: HandoffMessage
    public var sentAt: Date
}

/// Turns messages into sealed datagrams and back, applying every stateless receiving rule.
///
/// The stateful rules — sequence (replay) and own sender id — belong to whoever keeps
/// per-sender state (`ActivityCenter`).
public struct DatagramCodec: Sendable {
    public let cipher: GroupKeyCipher
    public var readerLimits: BinaryPropertyListReader.Limits
    /// How far `sentAt` may be from the receiver's clock.
    public var allowedClockSkew: TimeInterval

    public init(groupKey: GroupKey, allowedClockSkew: TimeInterval = 60) {
        cipher = GroupKeyCipher(groupKey: groupKey)
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
        nonce: [UInt8] = GroupKeyCipher.randomNonce()
    ) throws(SealError) -> [UInt8] {
        let header = DatagramHeader(kind: message.kind, senderID: senderID, sequence: sequence, nonce: nonce)
        return try cipher.seal(header: header, plaintext: Self.plaintext(message, sentAt: sentAt))
    }

    /// Opens and decodes a datagram, or says which receiving rule it broke.
    public func decode(_ datagram: [UInt8], now: Date = Date()) throws(RejectionReason) -> DecodedDatagram {
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
        return DecodedDatagram(header: header, message: message, sentAt: sentAt)
    }
}
