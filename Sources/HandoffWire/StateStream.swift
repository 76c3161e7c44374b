/// The fixed numbers of the state stream: the TCP connection over which a continuing peer
/// fetches a record too large for a datagram (docs/PROTOCOL.md, "The state stream").
public enum StateStream {
    /// ASCII `BTNS`, the first four bytes of both hellos.
    public static let magic: [UInt8] = [0x42, 0x54, 0x4E, 0x53]
    /// The version byte after the magic.
    public static let version: UInt8 = 2
    /// Bytes of each side's random nonce.
    public static let nonceLength = 32
    /// Bytes of a ClientHello: magic, version, three zero bytes, the client nonce.
    public static let clientHelloLength = 40
    /// Bytes of a ServerHello: the same layout with the server nonce, then the server proof.
    public static let serverHelloLength = 72
    /// Bytes of a proof (HMAC-SHA256).
    public static let proofLength = 32
    /// Bytes of the Poly1305 tag that ends every frame.
    public static let tagLength = 16
    /// The smallest frame length L (a one-byte plaintext and its tag).
    public static let minimumFrameLength = 17
    /// The largest frame length L (a 65,536-byte plaintext and its tag).
    public static let maximumFrameLength = 65_552
    /// The largest frame plaintext: a type byte and a body.
    public static let maximumPlaintext = 65_536
    /// The most state bytes one DATA frame carries.
    public static let maximumDataLength = 65_535
    /// The longest ERROR message, in UTF-8 bytes.
    public static let maximumErrorMessageLength = 200
    /// The longest `activityID` a GET names, in UTF-8 bytes.
    public static let maximumActivityIDLength = 255
    /// SHA-256 digests are 32 bytes.
    public static let digestLength = 32

    /// 32 fresh bytes from the system's random generator, for a hello's nonce.
    public static func randomNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(nonceLength)
        // Four draws rather than thirty-two: each draw may be a system call.
        for _ in 0..<(nonceLength / 8) {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return bytes
    }
}

/// What a continuing peer asks a source for: one kept state, by activity, revision and digest,
/// and how long it is (the OFFER's `activityID`, `revision`, `digest` and `size`).
public struct StateRequest: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var activityID: String
    public var revision: Int
    /// SHA-256 of the state, 32 bytes.
    public var digest: [UInt8]
    /// Bytes of the state, 1 or more.
    public var size: Int

    public init(activityID: String, revision: Int, digest: [UInt8], size: Int) {
        self.activityID = activityID
        self.revision = revision
        self.digest = digest
        self.size = size
    }

    /// The request for an OFFER's record.
    public init(activityID: String, revision: Int, offer: StateOffer) {
        self.init(activityID: activityID, revision: revision, digest: offer.digest, size: offer.size)
    }

    /// Why this request cannot be sent as a GET, or nil when it can.
    public var problem: String? {
        let idLength = activityID.utf8.count
        if idLength < 1 || idLength > StateStream.maximumActivityIDLength {
            return "the activity id is \(idLength) bytes long; a GET carries 1 to \(StateStream.maximumActivityIDLength)"
        }
        if digest.count != StateStream.digestLength {
            return "the digest is \(digest.count) bytes; SHA-256 gives \(StateStream.digestLength)"
        }
        if size < 1 { return "the size is \(size); a kept state has at least one byte" }
        return nil
    }

    public var description: String { "\(activityID) revision \(revision) (\(ByteSize.text(size)))" }
}
