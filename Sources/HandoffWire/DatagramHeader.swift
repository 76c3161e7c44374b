import FoundationEssentials

/// The clear 34-byte header of a version 3 datagram (`BTN3`); all of it is the associated data
/// (docs/PROTOCOL.md, section 2).
public struct DatagramHeader: Equatable, Sendable {
    /// ASCII `BTN3`.
    public static let magic: [UInt8] = Array("BTN3".utf8)
    /// ASCII `BTN1`: a version 1 or 2 datagram, refused as `oldProtocol`.
    public static let oldMagic: [UInt8] = Array("BTN1".utf8)
    /// Header length in bytes.
    public static let length = 34
    /// The Ed25519 signature sealed before the payload.
    public static let signatureLength = 64
    /// Poly1305 tag length in bytes.
    public static let tagLength = 16
    /// What a datagram carries besides its payload: header, signature and tag (114 bytes).
    public static let overhead = length + signatureLength + tagLength
    /// The shortest datagram that can be valid, an empty payload's (step 1).
    public static let minimumDatagramLength = overhead
    /// The largest payload a receiver opens (step 6).
    public static let maximumPayload = 60_000
    /// The largest datagram a receiver opens: 60,114 bytes.
    public static let maximumDatagramLength = overhead + maximumPayload
    /// Where the sender id lies in a datagram (bytes 10–25).
    public static let senderIDRange = 10..<26

    public var kind: DatagramKind
    /// Baton writes 0; receivers read it and ignore it.
    public var flags: UInt8
    /// Which group key sealed the datagram.
    public var keyID: KeyID
    /// The device's tag ‖ the process's instance.
    public var senderID: SenderID
    /// The sender's count, and the AEAD nonce.
    public var sequence: UInt64

    public init(kind: DatagramKind, flags: UInt8 = 0, keyID: KeyID, senderID: SenderID, sequence: UInt64) {
        self.kind = kind
        self.flags = flags
        self.keyID = keyID
        self.senderID = senderID
        self.sequence = sequence
    }

    /// The 34 header bytes as they go on the wire.
    public var bytes: [UInt8] {
        var out = Self.magic
        out.reserveCapacity(Self.length)
        out.append(kind.rawValue)
        out.append(flags)
        out.append(contentsOf: keyID.bytes)
        out.append(contentsOf: senderID.bytes)
        out.append(contentsOf: Self.bigEndian(sequence))
        return out
    }

    /// The ChaCha20-Poly1305 nonce: 4 zero bytes ‖ the sequence.
    public var nonce: [UInt8] { [0, 0, 0, 0] + Self.bigEndian(sequence) }

    /// Steps 1–3 of the checks (docs/PROTOCOL.md, section 7): the length (`tooShort`), the magic
    /// (`oldProtocol` for `BTN1`, else `badMagic`) and the kind (`unknownKind`).
    public init(parsing datagram: some RandomAccessCollection<UInt8>) throws(RejectionReason) {
        guard datagram.count >= Self.minimumDatagramLength else { throw .tooShort }
        let b = Array(datagram.prefix(Self.length))
        let magic = Array(b[0..<4])
        guard magic == Self.magic else { throw magic == Self.oldMagic ? .oldProtocol : .badMagic }
        guard let kind = DatagramKind(rawValue: b[4]) else { throw .unknownKind }
        self.kind = kind
        flags = b[5]
        keyID = KeyID(bytes: b[6..<10])!
        senderID = SenderID(bytes: Array(b[10..<26]))!
        var sequence: UInt64 = 0
        for byte in b[26..<34] { sequence = sequence << 8 | UInt64(byte) }
        self.sequence = sequence
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}
