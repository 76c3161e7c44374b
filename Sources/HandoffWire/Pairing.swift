import Crypto
import FoundationEssentials

/// `baton pair`'s wire format and derivations (docs/PROTOCOL.md, section 15).
public enum Pairing {
    /// `BTNP`, the first bytes of a HELLO.
    public static let magic: [UInt8] = Array("BTNP".utf8)
    /// Pairing version 2: identities bound (docs/PROTOCOL.md, section 15).
    public static let version: UInt8 = 2
    /// UDP (HELLO) and TCP (the exchange) port.
    public static let defaultPort = 47790
    /// The whole pairing, answers included.
    public static let defaultTimeout: Double = 120
    public static let helloInterval: Double = 0.25
    public static let helloLength = 24
    /// The longest frame body: a SEALED STATEMENT of 1,024 bytes (type byte and tag around it).
    public static let maximumBody = 1 + HandoffMessage.statementSizes.upperBound + 16
    public static let maximumNameBytes = 64
    /// ABORT reason: the sender's list says the receiver was removed from the group.
    public static let abortRemovedThere: UInt8 = 5
    /// ABORT reason: the sender's list says the sender itself was removed from the group.
    public static let abortRemovedHere: UInt8 = 6
    static let commitLabel: [UInt8] = Array("baton pair v2 commit".utf8)
    static let confirmLabel: [UInt8] = Array("baton pair v2 confirm".utf8)
    static let keyLabel: [UInt8] = Array("baton pair v2 key".utf8)

    /// A HELLO: magic, version, type 0, the TCP port and the pairing id (24 bytes).
    public static func hello(port: UInt16, pairingID: [UInt8]) -> [UInt8] {
        precondition(pairingID.count == 16, "a pairing id is 16 bytes")
        return magic + [version, 0, UInt8(port >> 8), UInt8(port & 0xff)] + pairingID
    }

    /// The port and pairing id of a HELLO of this version, or nil for anything else.
    public static func parseHello(_ bytes: [UInt8]) -> (port: UInt16, pairingID: [UInt8])? {
        guard helloVersion(bytes) == version else { return nil }
        return (UInt16(bytes[6]) << 8 | UInt16(bytes[7]), Array(bytes[8..<24]))
    }

    /// The version byte of a HELLO of any version (24 bytes, the magic, type 0), or nil when
    /// `bytes` is no HELLO at all.
    public static func helloVersion(_ bytes: [UInt8]) -> UInt8? {
        guard bytes.count == helloLength, Array(bytes[0..<4]) == magic, bytes[5] == 0 else { return nil }
        return bytes[4]
    }

    /// SHA-256(`baton pair v2 commit` ‖ ephemeral public key ‖ nonce ‖ public identity).
    public static func commitment(publicKey: [UInt8], nonce: [UInt8], identity: PublicIdentity) -> [UInt8] {
        Array(SHA256.hash(data: commitLabel + publicKey + nonce + identity.bytes))
    }

    /// What a side signs: `label` ‖ SHA-256(transcript).
    static func signed(_ label: [UInt8], transcript: [UInt8]) -> [UInt8] {
        label + Array(SHA256.hash(data: transcript))
    }

    /// The three outputs of one pairing: the code and the two SEALED keys.
    public struct Keys: Equatable, Sendable {
        public let code: String
        public let sharer: [UInt8]
        public let joiner: [UInt8]

        /// From the X25519 secret and the transcript COMMIT ‖ PUBLIC ‖ REVEAL.
        public init(sharedSecret: [UInt8], transcript: [UInt8]) {
            let salt = Array(SHA256.hash(data: transcript))
            func derive(_ info: String, _ count: Int) -> [UInt8] {
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: SymmetricKey(data: sharedSecret), salt: salt, info: Array(info.utf8),
                    outputByteCount: count
                ).withUnsafeBytes { Array($0) }
            }
            let number = derive("baton pair v2 code", 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
            let digits = String(number)
            let six = String(repeating: "0", count: 6 - digits.count) + digits
            code = String(six.prefix(3)) + " " + String(six.suffix(3))
            sharer = derive("baton pair v2 sharer", 32)
            joiner = derive("baton pair v2 joiner", 32)
        }
    }

    /// Frame types on the TCP connection.
    public enum FrameType: UInt8, Sendable {
        case commit = 1, publicKey = 2, reveal = 3, sealed = 4, abort = 5
    }

    /// Plaintext types inside a SEALED frame.
    enum SealedType: UInt8 {
        case confirm = 1, key = 2, stored = 3, statement = 4
    }

    /// type ‖ length (2) ‖ body.
    public static func frame(_ type: FrameType, _ body: [UInt8]) -> [UInt8] {
        precondition((1...maximumBody).contains(body.count), "a pairing frame's body is 1-1,041 bytes")
        return [type.rawValue, UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
    }

    /// ChaCha20-Poly1305 under `key`, nonce `00000000` ‖ counter, associated data the header.
    static func sealedFrame(_ plaintext: [UInt8], key: [UInt8], counter: UInt64) -> [UInt8] {
        let length = plaintext.count + 16
        let header: [UInt8] = [FrameType.sealed.rawValue, UInt8(length >> 8), UInt8(length & 0xff)]
        // swift-format-ignore
        let box = try! ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: nonce(counter), authenticating: header)
        return header + Array(box.ciphertext) + Array(box.tag)
    }

    static func open(_ body: [UInt8], header: [UInt8], key: [UInt8], counter: UInt64) -> [UInt8]? {
        guard body.count > 16,
            let box = try? ChaChaPoly.SealedBox(
                nonce: nonce(counter), ciphertext: body.dropLast(16), tag: body.suffix(16)),
            let plain = try? ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: header)
        else { return nil }
        return Array(plain)
    }

    static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
        let bytes: [UInt8] = [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) }
        return try! ChaChaPoly.Nonce(data: bytes)
    }
}
