import Crypto
import FoundationEssentials
import PropertyList

/// What a statement says (docs/PROTOCOL.md, section 17, "Statements").
public enum StatementContent: Hashable, Sendable {
    /// Lists `identity` under `name` (1–64 UTF-8 bytes).
    case introduce(identity: PublicIdentity, name: String)
    /// Marks the device with this 16-byte id removed, for good.
    case remove(device: [UInt8])
    /// A new group key with the id `keyID`, sealed for the device `to` (`GroupKeySeal`).
    case key(to: [UInt8], keyID: KeyID, ephemeral: [UInt8], sealed: [UInt8])

    /// The `statement` string.
    public var name: String {
        switch self {
        case .introduce: "introduce"
        case .remove: "remove"
        case .key: "key"
        }
    }
}

/// Why statement bytes were not taken as a statement.
public enum StatementError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Under 64 or over 1,024 bytes.
    case badSize
    /// The body is not a binary plist the strict reader takes, or its root is not a dictionary.
    case malformedBody
    /// A key of the table is missing, of another type or out of its range.
    case invalidBody
    /// `statement` is not `introduce`, `remove` or `key`.
    case unknownKind
    /// The signature is not the issuer's (or the identity given is not the issuer's).
    case badSignature

    public var description: String {
        switch self {
        case .badSize: "a statement is 64 to 1,024 bytes"
        case .malformedBody: "the body is not a binary plist dictionary"
        case .invalidBody: "the body does not keep to the statement table"
        case .unknownKind: "unknown kind of statement"
        case .badSignature: "the signature is not the issuer's"
        }
    }
}

/// A signed statement about the group's devices: signature (64) ‖ body, where body is a canonical
/// binary plist and the signature is the issuer's Ed25519 signature over `baton v3 statement` ‖ body
/// (docs/PROTOCOL.md, section 17). At most 1,024 bytes.
public struct Statement: Hashable, Sendable {
    /// ASCII `baton v3 statement`.
    public static let signatureContext: [UInt8] = Array("baton v3 statement".utf8)
    public static let signatureLength = 64
    /// The sizes a statement may have, whole.
    public static let sizes = HandoffMessage.statementSizes
    /// The longest `name` an introduction carries, in UTF-8 bytes.
    public static let maximumNameBytes = 64

    /// The whole statement as it goes in DEVICES.
    public let bytes: [UInt8]
    /// The issuer's device id (16 bytes).
    public let by: [UInt8]
    /// When the issuer made it.
    public let at: Date
    public let content: StatementContent

    public var signature: [UInt8] { Array(bytes[0..<Self.signatureLength]) }
    public var body: [UInt8] { Array(bytes[Self.signatureLength...]) }

    /// Makes and signs a statement by `issuer`. `content` must keep to the table (an
    /// introduction's name 1–64 UTF-8 bytes); every statement Baton makes is far below 1,024 bytes.
    public init(_ content: StatementContent, by issuer: DeviceIdentity, at: Date) {
        let by = issuer.publicIdentity.deviceID.bytes
        var dict: [String: PropertyListValue] = [
            "statement": .string(content.name), "by": .data(Data(by)), "at": .date(at),
        ]
        switch content {
        case .introduce(let identity, let name):
            precondition((1...Self.maximumNameBytes).contains(name.utf8.count), "an introduced name is 1–64 UTF-8 bytes")
            dict["identity"] = .data(Data(identity.bytes))
            dict["name"] = .string(name)
        case .remove(let device):
            precondition(device.count == 16, "a device id is 16 bytes")
            dict["device"] = .data(Data(device))
        case .key(let to, let keyID, let ephemeral, let sealed):
            precondition(to.count == 16 && ephemeral.count == 32 && sealed.count == 48, "a key statement's sizes")
            dict["to"] = .data(Data(to))
            dict["keyID"] = .data(Data(keyID.bytes))
            dict["ephemeral"] = .data(Data(ephemeral))
            dict["sealed"] = .data(Data(sealed))
        }
        let body = BinaryPropertyListWriter().write(.dictionary(dict))
        let bytes = issuer.sign(Self.signatureContext + body) + body
        precondition(Self.sizes.contains(bytes.count), "a statement is at most 1,024 bytes")
        self.bytes = bytes
        self.by = by
        self.at = at
        self.content = content
    }

    /// Reads a statement's body with the strict reader, checking it against the table; the
    /// signature is not checked here (`isSigned(by:)`). Keys the table does not list are ignored.
    public init(parsing bytes: [UInt8]) throws(StatementError) {
        guard Self.sizes.contains(bytes.count) else { throw .badSize }
        let root: PropertyListValue
        do {
            root = try BinaryPropertyListReader().read(bytes[Self.signatureLength...])
        } catch {
            throw .malformedBody
        }
        guard case .dictionary(let d) = root else { throw .malformedBody }
        func data(_ key: String, _ count: Int) throws(StatementError) -> [UInt8] {
            guard let value = d[key]?.dataValue, value.count == count else { throw .invalidBody }
            return Array(value)
        }
        guard let kind = d["statement"]?.stringValue, let at = d["at"]?.dateValue else { throw .invalidBody }
        let by = try data("by", 16)
        let content: StatementContent
        switch kind {
        case "introduce":
            guard let identity = PublicIdentity(bytes: try data("identity", PublicIdentity.length)),
                let name = d["name"]?.stringValue, (1...Self.maximumNameBytes).contains(name.utf8.count)
            else { throw .invalidBody }
            content = .introduce(identity: identity, name: name)
        case "remove":
            content = .remove(device: try data("device", 16))
        case "key":
            content = .key(
                to: try data("to", 16), keyID: KeyID(bytes: try data("keyID", KeyID.length))!,
                ephemeral: try data("ephemeral", 32), sealed: try data("sealed", 48))
        default:
            throw .unknownKind
        }
        self.bytes = bytes
        self.by = by
        self.at = at
        self.content = content
    }

    /// Whether `issuer` is the device the statement names in `by` and its signature is that
    /// device's over `baton v3 statement` ‖ body.
    public func isSigned(by issuer: PublicIdentity) -> Bool {
        issuer.deviceID.bytes == by && issuer.isValidSignature(signature, of: Self.signatureContext + body)
    }

    /// The DEVICES `digest` of a set of statements: the first 8 bytes of SHA-256 over the SHA-256
    /// of each distinct statement, sorted as unsigned bytes and joined.
    public static func setDigest(_ statements: some Sequence<[UInt8]>) -> [UInt8] {
        let hashes = Set(statements.map { Array(SHA256.hash(data: $0)) }).sorted { $0.lexicographicallyPrecedes($1) }
        return Array(SHA256.hash(data: hashes.flatMap { $0 }).prefix(HandoffMessage.devicesDigestLength))
    }
}

/// A new group key sealed for one device (docs/PROTOCOL.md, section 17): S = X25519(ephemeral
/// private key, the recipient's agreement key); k = HKDF-SHA256(S, salt = ephemeral public key ‖
/// recipient agreement key, info = `v3 group key`); ChaCha20-Poly1305 under k with 12 zero bytes
/// as nonce (k is used once) and the recipient's device id ‖ key id as associated data.
public enum GroupKeySeal {
    static let info: [UInt8] = Array("v3 group key".utf8)

    /// The ephemeral public key (32) and `sealed` (48) for `recipient`; `ephemeralPrivateKey`
    /// is 32 bytes, fresh for each statement (fixed only in vectors).
    public static func seal(
        _ key: GroupKey, for recipient: PublicIdentity, ephemeralPrivateKey: [UInt8] = randomPrivateKey()
    ) -> (ephemeral: [UInt8], sealed: [UInt8]) {
        let ephemeral = try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: ephemeralPrivateKey)
        let ephemeralPublic = Array(ephemeral.publicKey.rawRepresentation)
        // A recipient key that gives no shared secret is a bad identity; such a device cannot be
        // sent a key, and the statement's `sealed` opens for nobody.
        let k = (try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipient.agreementKey))
            .flatMap { try? ephemeral.sharedSecretFromKeyAgreement(with: $0) }
            .map { derive($0, ephemeral: ephemeralPublic, recipient: recipient.agreementKey) } ?? randomPrivateKey()
        let box = try! ChaChaPoly.seal(
            key.bytes, using: SymmetricKey(data: k), nonce: zeroNonce,
            authenticating: recipient.deviceID.bytes + key.keyID.bytes)
        return (ephemeralPublic, Array(box.ciphertext) + Array(box.tag))
    }

    /// Opens `sealed` with this device's agreement key: the group key, when it opens and its key
    /// id is `keyID`; nil otherwise.
    public static func open(sealed: [UInt8], ephemeral: [UInt8], keyID: KeyID, with identity: DeviceIdentity) -> GroupKey? {
        guard sealed.count == 48,
            let own = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: identity.agreementKeyBytes),
            let theirs = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: ephemeral),
            let secret = try? own.sharedSecretFromKeyAgreement(with: theirs)
        else { return nil }
        let k = derive(secret, ephemeral: ephemeral, recipient: identity.publicIdentity.agreementKey)
        guard let box = try? ChaChaPoly.SealedBox(nonce: zeroNonce, ciphertext: sealed[0..<32], tag: sealed[32...]),
            let opened = try? ChaChaPoly.open(
                box, using: SymmetricKey(data: k), authenticating: identity.publicIdentity.deviceID.bytes + keyID.bytes),
            let key = GroupKey(bytes: Array(opened)), key.keyID == keyID
        else { return nil }
        return key
    }

    /// 12 zero bytes; a computed property, as `ChaChaPoly.Nonce` is not declared Sendable.
    static var zeroNonce: ChaChaPoly.Nonce { try! ChaChaPoly.Nonce(data: [UInt8](repeating: 0, count: 12)) }

    static func derive(_ secret: SharedSecret, ephemeral: [UInt8], recipient: [UInt8]) -> [UInt8] {
        secret.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeral + recipient, sharedInfo: info, outputByteCount: 32)
            .withUnsafeBytes { Array($0) }
    }

    /// 32 random bytes: an X25519 private key.
    public static func randomPrivateKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension Statement {
    /// A `key` statement by `issuer` that gives `key` to `recipient`.
    public static func key(
        _ key: GroupKey, for recipient: PublicIdentity, by issuer: DeviceIdentity, at: Date,
        ephemeralPrivateKey: [UInt8] = GroupKeySeal.randomPrivateKey()
    ) -> Statement {
        let (ephemeral, sealed) = GroupKeySeal.seal(key, for: recipient, ephemeralPrivateKey: ephemeralPrivateKey)
        return Statement(
            .key(to: recipient.deviceID.bytes, keyID: key.keyID, ephemeral: ephemeral, sealed: sealed), by: issuer, at: at)
    }
}
