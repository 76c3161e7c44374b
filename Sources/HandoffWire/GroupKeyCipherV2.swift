import Crypto
import FoundationEssentials

/// Version 2: seals and opens datagram payloads with the one key derived from the group key.
///
/// `HKDF-SHA256(ikm: groupKey, salt: "baton-handoff", info: "v1 datagram", 32 bytes)` keys
/// ChaCha20-Poly1305; the whole 42-byte header is the associated data (docs/PROTOCOL.md).
public struct GroupKeyCipherV2: Sendable {
    /// The largest plaintext payload in bytes.
    public static let maximumPlaintext = 60_000

    /// The derived AEAD key. `SymmetricKey` is immutable but not declared Sendable, so the
    /// bytes are kept and wrapped per call.
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    public init(groupKey: GroupKey) {
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: groupKey.bytes),
            salt: Array("baton-handoff".utf8),
            info: Array("v1 datagram".utf8),
            outputByteCount: 32)
        keyBytes = derived.withUnsafeBytes { Array($0) }
    }

    /// Builds a whole datagram: the header, then the sealed payload and its tag.
    public func seal(header: DatagramHeaderV2, plaintext: [UInt8]) throws(SealError) -> [UInt8] {
        guard plaintext.count <= Self.maximumPlaintext else {
            throw .payloadTooLarge(bytes: plaintext.count, limit: Self.maximumPlaintext)
        }
        let headerBytes = header.bytes
        // A 12-byte nonce and a 32-byte key cannot be refused by ChaChaPoly.
        let nonce = try! ChaChaPoly.Nonce(data: header.nonce)
        let box = try! ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: headerBytes)
        var out = headerBytes
        out.reserveCapacity(headerBytes.count + plaintext.count + DatagramHeaderV2.tagLength)
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
        return out
    }

    /// Checks a datagram's header, size and tag, and returns the header and plaintext.
    public func open(_ datagram: [UInt8]) throws(RejectionReason) -> (header: DatagramHeaderV2, plaintext: [UInt8]) {
        let header = try DatagramHeaderV2(parsing: datagram)
        let sealedCount = datagram.count - DatagramHeaderV2.length
        guard sealedCount - DatagramHeaderV2.tagLength <= Self.maximumPlaintext else { throw .tooLarge }
        let ciphertext = datagram[DatagramHeaderV2.length..<(datagram.count - DatagramHeaderV2.tagLength)]
        let tag = datagram[(datagram.count - DatagramHeaderV2.tagLength)...]
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: header.nonce), ciphertext: ciphertext, tag: tag)
            let plaintext = try ChaChaPoly.open(box, using: key, authenticating: datagram[0..<DatagramHeaderV2.length])
            return (header, Array(plaintext))
        } catch {
            throw .authenticationFailed
        }
    }

    /// 12 fresh random bytes for a datagram's nonce.
    public static func randomNonce() -> [UInt8] {
        // Two draws from the system generator rather than twelve: each draw is a system call.
        var generator = SystemRandomNumberGenerator()
        let a = generator.next(), b = generator.next()
        return (0..<8).map { UInt8(truncatingIfNeeded: a >> ($0 * 8)) } + (0..<4).map { UInt8(truncatingIfNeeded: b >> ($0 * 8)) }
    }
}
