import Crypto

/// The fixed numbers of the state stream: the TCP connection over which a continuing peer
/// fetches a record too large for a datagram (docs/PROTOCOL.md, "The state stream").
public enum StateStream {
    /// ASCII `BTNS`, the first four bytes of both hellos.
    public static let magic: [UInt8] = [0x42, 0x54, 0x4E, 0x53]
    /// The version byte after the magic.
    public static let version: UInt8 = 3
    /// Bytes of a key id: which group key the client opened the OFFER with.
    public static let keyIDLength = 4
    /// Bytes of a sender id: the device's tag (8) and the process's instance (8).
    public static let senderIDLength = 16
    /// Bytes of the device tag that begins a sender id.
    public static let deviceTagLength = 8
    /// Bytes of an X25519 key, public or private.
    public static let ephemeralKeyLength = 32
    /// Bytes of a ClientHello: magic, version, three zero bytes, key id, client sender id,
    /// client ephemeral public key.
    public static let clientHelloLength = 60
    /// Bytes of a ServerHello: magic, version, three zero bytes, server sender id, server
    /// ephemeral public key, server signature.
    public static let serverHelloLength = 120
    /// Bytes of the ServerHello the server's signature covers (all but the signature).
    public static let serverHelloSignedLength = 56
    /// Bytes of an Ed25519 signature: the server's in its hello, and the ClientProof.
    public static let signatureLength = 64
    /// Bytes of a ClientProof: the client's signature.
    public static let proofLength = 64
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

    /// A fresh X25519 private key from the system's random generator, for one connection's
    /// handshake (its raw 32 bytes: any 32 bytes are an X25519 private key).
    public static func newEphemeralKey() -> [UInt8] {
        Array(Curve25519.KeyAgreement.PrivateKey().rawRepresentation)
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

    /// The request for the state kept under `key`: the GET names it as `key.requestedName`.
    public init(key: StateShelf.Key, revision: Int, digest: [UInt8], size: Int) {
        self.init(activityID: key.requestedName, revision: revision, digest: digest, size: size)
    }

    /// What the GET asks for.
    public var key: StateShelf.Key { StateShelf.Key(requested: activityID) }

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
