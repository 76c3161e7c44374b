import Crypto
import FoundationEssentials

/// This machine's identity: a 32-byte seed and the two key pairs derived from it
/// (docs/PROTOCOL.md, section 3, "Device identity"). The seed's file is `BatonFiles`' business.
public struct DeviceIdentity: Sendable {
    /// The seed, as kept in `identity.key`.
    public let seed: [UInt8]
    /// The Ed25519 private key (RFC 8032's 32-byte private key), derived from the seed.
    /// Kept as bytes: swift-crypto's key types are not declared `Sendable`.
    let signingKeyBytes: [UInt8]
    /// The X25519 private key, derived from the seed.
    public let agreementKeyBytes: [UInt8]
    /// What others learn: the two public keys.
    public let publicIdentity: PublicIdentity
    /// The signing key, made once: making it from its bytes costs a scalar multiplication,
    /// which every datagram's signature would otherwise pay again.
    private let signer: Signer

    static let salt: [UInt8] = Array("baton-handoff".utf8)
    static let signingInfo: [UInt8] = Array("v3 identity signing".utf8)
    static let agreementInfo: [UInt8] = Array("v3 identity agreement".utf8)

    /// The identity of `seed`, which must be 32 bytes.
    public init?(seed: [UInt8]) {
        guard seed.count == 32 else { return nil }
        func derive(_ info: [UInt8]) -> [UInt8] {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: seed), salt: Self.salt, info: info, outputByteCount: 32
            ).withUnsafeBytes { Array($0) }
        }
        self.seed = seed
        signingKeyBytes = derive(Self.signingInfo)
        agreementKeyBytes = derive(Self.agreementInfo)
        // Any 32 bytes are a valid private key of either kind.
        let signing = try! Curve25519.Signing.PrivateKey(rawRepresentation: signingKeyBytes)
        let agreement = try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: agreementKeyBytes)
        publicIdentity = PublicIdentity(
            bytes: Array(signing.publicKey.rawRepresentation) + Array(agreement.publicKey.rawRepresentation))!
        signer = Signer(key: signing)
    }

    /// Parses the base64 form of the seed; surrounding white space is ignored. `source` names
    /// where the text came from, for the error.
    public init(base64 text: String, source: String) throws(DeviceIdentity.Malformed) {
        let trimmed = text.trimmed()
        guard let data = Data(base64Encoded: trimmed) else {
            throw Malformed(source: source, reason: "it is not standard base64")
        }
        guard data.count == 32 else {
            throw Malformed(source: source, reason: "it decodes to \(data.count) bytes, not 32")
        }
        self.init(seed: Array(data))!
    }

    /// A fresh random identity.
    public static func random() -> DeviceIdentity {
        var generator = SystemRandomNumberGenerator()
        return DeviceIdentity(seed: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// The seed's 44-character base64 form, as the file holds it.
    public var base64: String { Data(seed).base64EncodedString() }

    /// The Ed25519 signature of `message` (64 bytes; RFC 8032, so the same message gives the same bytes).
    public func sign(_ message: [UInt8]) -> [UInt8] {
        Array(try! signer.key.signature(for: message))
    }

    /// swift-crypto's key types are not declared `Sendable`; this one is never changed after it
    /// is made, and signing with it from several threads at once is safe.
    private final class Signer: @unchecked Sendable {
        let key: Curve25519.Signing.PrivateKey
        init(key: Curve25519.Signing.PrivateKey) { self.key = key }
    }

    /// Why a seed's text is not an identity.
    public struct Malformed: Error, Equatable, Sendable {
        public let source: String
        public let reason: String
    }
}

/// A device's public identity: its Ed25519 public key (32) ‖ its X25519 public key (32).
public struct PublicIdentity: Hashable, Sendable, CustomStringConvertible {
    public static let length = 64
    public let bytes: [UInt8]

    /// Any 64 bytes; whether the signing half is a usable key shows when a signature is checked.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    public var signingKey: [UInt8] { Array(bytes[0..<32]) }
    public var agreementKey: [UInt8] { Array(bytes[32..<64]) }
    public var deviceID: DeviceID { DeviceID(of: self) }
    public var base64: String { Data(bytes).base64EncodedString() }
    public var description: String { deviceID.fingerprint }

    /// Whether `signature` is this identity's Ed25519 signature of `message`; false for a
    /// signing key that cannot be read.
    public func isValidSignature(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: signingKey) else {
            return false
        }
        return key.isValidSignature(signature, for: message)
    }
}

/// The first 16 bytes of SHA-256(`baton device` ‖ public identity): a device's name in lists,
/// and what its fingerprint spells.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]
    static let label: [UInt8] = Array("baton device".utf8)

    public init(of identity: PublicIdentity) {
        bytes = Array(SHA256.hash(data: Self.label + identity.bytes).prefix(16))
    }

    /// 32 lower-case hex digits.
    public var hex: String { PlainText.hex(bytes) }

    /// The hex digits in 8 groups of 4: `2614 dcb9 6a1b 161f 024a 2186 2434 2e1b`.
    public var fingerprint: String {
        let digits = Array(hex)
        return stride(from: 0, to: 32, by: 4).map { String(digits[$0..<($0 + 4)]) }.joined(separator: " ")
    }

    public var description: String { fingerprint }
}
