import Foundation

/// The kind byte of a datagram (docs/PROTOCOL.md, "Datagram").
public enum DatagramKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case announce = 1
    case withdraw = 2
    case query = 3
    case continued = 4
    case offer = 5

    public var description: String {
        switch self {
        case .announce: "ANNOUNCE"
        case .withdraw: "WITHDRAW"
        case .query: "QUERY"
        case .continued: "CONTINUED"
        case .offer: "OFFER"
        }
    }
}

/// The 16 random bytes a peer picks once per process start.
public struct SenderID: Hashable, Sendable, CustomStringConvertible {
    /// Always 16 bytes.
    public let bytes: [UInt8]

    /// Wraps 16 bytes; nil for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A fresh random sender id.
    public static func random() -> SenderID {
        var generator = SystemRandomNumberGenerator()
        return SenderID(bytes: (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// The first 8 bytes in hex, enough to tell peers apart in logs.
    public var description: String { bytes.prefix(8).map { String(format: "%02x", $0) }.joined() }
}

/// The clear 42-byte header of every datagram; all of it is authenticated.
public struct DatagramHeader: Equatable, Sendable {
    /// ASCII `BTN1`.
    public static let magic: [UInt8] = [0x42, 0x54, 0x4E, 0x31]
    /// Header length in bytes.
    public static let length = 42
    /// Poly1305 tag length in bytes.
    public static let tagLength = 16
    /// The shortest datagram that can be valid: a header and a tag.
    public static let minimumDatagramLength = length + tagLength

    public var kind: DatagramKind
    public var flags: UInt8
    public var senderID: SenderID
    public var sequence: UInt64
    /// 12 random bytes, new for every datagram.
    public var nonce: [UInt8]

    public init(kind: DatagramKind, flags: UInt8 = 0, senderID: SenderID, sequence: UInt64, nonce: [UInt8]) {
        precondition(nonce.count == 12, "a ChaCha20-Poly1305 nonce is 12 bytes")
        self.kind = kind
        self.flags = flags
        self.senderID = senderID
        self.sequence = sequence
        self.nonce = nonce
    }

    /// The 42 header bytes as they go on the wire.
    public var bytes: [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.length)
        out.append(kind.rawValue)
        out.append(flags)
        out.append(contentsOf: senderID.bytes)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: sequence >> UInt64(shift))) }
        out.append(contentsOf: nonce)
        return out
    }

    /// Parses the header of a datagram, checking length, magic and kind.
    public init(parsing datagram: some RandomAccessCollection<UInt8>) throws(RejectionReason) {
        guard datagram.count >= Self.minimumDatagramLength else { throw .tooShort }
        let b = Array(datagram.prefix(Self.length))
        guard Array(b[0..<4]) == Self.magic else { throw .badMagic }
        guard let kind = DatagramKind(rawValue: b[4]) else { throw .unknownKind }
        self.kind = kind
        self.flags = b[5]
        self.senderID = SenderID(bytes: Array(b[6..<22]))!
        var sequence: UInt64 = 0
        for byte in b[22..<30] { sequence = sequence << 8 | UInt64(byte) }
        self.sequence = sequence
        self.nonce = Array(b[30..<42])
    }
}
