import FoundationEssentials

/// The clear 42-byte header of a version 2 datagram (`BTN1`); all of it is authenticated.
///
/// Version 2 only, kept while `Handoff` still speaks it: version 3 is `DatagramHeader`.
public struct DatagramHeaderV2: Equatable, Sendable {
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
        // Version 2 has kinds 1–5; DEVICES (6) and STORE (7) are version 3's.
        guard let kind = DatagramKind(rawValue: b[4]), kind.rawValue <= 5 else { throw .unknownKind }
        self.kind = kind
        self.flags = b[5]
        self.senderID = SenderID(bytes: Array(b[6..<22]))!
        var sequence: UInt64 = 0
        for byte in b[22..<30] { sequence = sequence << 8 | UInt64(byte) }
        self.sequence = sequence
        self.nonce = Array(b[30..<42])
    }
}
