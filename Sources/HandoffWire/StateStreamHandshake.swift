import Crypto

/// The two keys of one state-stream connection (docs/PROTOCOL.md, "Handshake"), both
/// HKDF-SHA256 with IKM = group key ‖ X25519 secret and salt = SHA-256(ClientHello ‖ ServerHello):
///
/// | key | info |
/// | --- | --- |
/// | client (client → server frames) | `v3 stream client` |
/// | server (server → client frames) | `v3 stream server` |
///
/// Kept as bytes: `SymmetricKey` is not declared `Sendable`, and the machines that hold
/// these keys are.
public struct StateStreamKeys: Equatable, Sendable {
    public let client: [UInt8]
    public let server: [UInt8]

    /// The keys of a handshake: `secret` is the 32-byte X25519 result, `clientHello` the
    /// 60-byte ClientHello and `serverHello` the whole 120-byte ServerHello.
    public init(groupKey: GroupKey, secret: [UInt8], clientHello: [UInt8], serverHello: [UInt8]) {
        let inputKey = SymmetricKey(data: groupKey.bytes + secret)
        let salt = Array(SHA256.hash(data: clientHello + serverHello))
        client = Self.derive(inputKey, salt: salt, info: "v3 stream client")
        server = Self.derive(inputKey, salt: salt, info: "v3 stream server")
    }

    static func derive(_ inputKey: SymmetricKey, salt: [UInt8], info: String) -> [UInt8] {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: inputKey, salt: salt, info: Array(info.utf8), outputByteCount: 32)
            .withUnsafeBytes { Array($0) }
    }
}

/// Building and checking the handshake's messages: ClientHello, ServerHello and ClientProof.
public enum StateStreamHandshake {
    /// The 8 bytes every hello starts with: `BTNS`, version `03`, `000000`.
    static let helloPrefix: [UInt8] = StateStream.magic + [StateStream.version, 0, 0, 0]
    /// What the server's signature starts with.
    static let serverLabel: [UInt8] = Array("baton v3 stream server".utf8)
    /// What the client's signature (the ClientProof) starts with.
    static let clientLabel: [UInt8] = Array("baton v3 stream client".utf8)

    /// The fields of a ClientHello.
    public struct ClientHello: Equatable, Sendable {
        /// Which group key the client opened the OFFER with (4 bytes).
        public var keyID: [UInt8]
        /// The client's sender id: its device's tag ‖ its instance.
        public var senderID: SenderID
        /// The client's ephemeral X25519 public key (32 bytes).
        public var ephemeralKey: [UInt8]

        public init(keyID: [UInt8], senderID: SenderID, ephemeralKey: [UInt8]) {
            precondition(keyID.count == StateStream.keyIDLength, "a key id is 4 bytes")
            precondition(ephemeralKey.count == StateStream.ephemeralKeyLength, "an X25519 public key is 32 bytes")
            self.keyID = keyID
            self.senderID = senderID
            self.ephemeralKey = ephemeralKey
        }

        /// Reads the first 60 bytes of `bytes`; nil when they are fewer or do not start with
        /// exactly `BTNS 03 000000`.
        public init?(_ bytes: ArraySlice<UInt8>) {
            let b = Array(bytes.prefix(StateStream.clientHelloLength))
            guard b.count == StateStream.clientHelloLength, b.starts(with: helloPrefix) else { return nil }
            keyID = Array(b[8..<12])
            senderID = SenderID(bytes: Array(b[12..<28]))!
            ephemeralKey = Array(b[28..<60])
        }

        /// The 60 bytes.
        public var bytes: [UInt8] { helloPrefix + keyID + senderID.bytes + ephemeralKey }
    }

    /// The fields of a ServerHello.
    public struct ServerHello: Equatable, Sendable {
        /// The server's sender id: its device's tag ‖ its instance.
        public var senderID: SenderID
        /// The server's ephemeral X25519 public key (32 bytes).
        public var ephemeralKey: [UInt8]
        /// The server's Ed25519 signature over `baton v3 stream server` ‖ ClientHello ‖ the
        /// first 56 bytes of this hello.
        public var signature: [UInt8]

        /// Reads the first 120 bytes of `bytes`; nil when they are fewer or do not start with
        /// exactly `BTNS 03 000000`.
        public init?(_ bytes: ArraySlice<UInt8>) {
            let b = Array(bytes.prefix(StateStream.serverHelloLength))
            guard b.count == StateStream.serverHelloLength, b.starts(with: helloPrefix) else { return nil }
            senderID = SenderID(bytes: Array(b[8..<24]))!
            ephemeralKey = Array(b[24..<56])
            signature = Array(b[56..<120])
        }

        /// A ServerHello answering `clientHello`, signed by `identity`'s device.
        public init(answering clientHello: [UInt8], identity: StreamIdentity, ephemeralKey: [UInt8]) {
            precondition(ephemeralKey.count == StateStream.ephemeralKeyLength, "an X25519 public key is 32 bytes")
            senderID = identity.senderID
            self.ephemeralKey = ephemeralKey
            signature = []
            signature = identity.device.sign(StateStreamHandshake.serverSigned(clientHello: clientHello, serverHello: self))
        }

        /// The first 56 bytes: what the signature covers of this hello.
        public var signedPart: [UInt8] { helloPrefix + senderID.bytes + ephemeralKey }

        /// The 120 bytes.
        public var bytes: [UInt8] { signedPart + signature }
    }

    /// What the server signs: `baton v3 stream server` ‖ ClientHello ‖ the first 56 bytes of the ServerHello.
    public static func serverSigned(clientHello: [UInt8], serverHello: ServerHello) -> [UInt8] {
        serverLabel + clientHello + serverHello.signedPart
    }

    /// What the client signs for its ClientProof: `baton v3 stream client` ‖ ClientHello ‖ ServerHello.
    public static func clientSigned(clientHello: [UInt8], serverHello: [UInt8]) -> [UInt8] {
        clientLabel + clientHello + serverHello
    }

    /// Whether the first bytes of a hello, however few have arrived, already differ from
    /// `BTNS 03 000000`; a peer need not wait for the rest to refuse it.
    public static func isRefusedHelloStart(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.prefix(helloPrefix.count).elementsEqual(helloPrefix.prefix(min(bytes.count, helloPrefix.count)))
    }

    /// The public key of an X25519 private key (its raw 32 bytes).
    public static func publicKey(ofEphemeral privateKey: [UInt8]) -> [UInt8] {
        Array(ephemeral(privateKey).publicKey.rawRepresentation)
    }

    /// X25519(`privateKey`, `publicKey`), or nil when the result is all zeros (a low-order
    /// public key) or the public key cannot be read: the handshake closes then.
    public static func sharedSecret(privateKey: [UInt8], publicKey: [UInt8]) -> [UInt8]? {
        guard publicKey.count == StateStream.ephemeralKeyLength,
            let other = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: publicKey),
            let shared = try? ephemeral(privateKey).sharedSecretFromKeyAgreement(with: other)
        else { return nil }
        let secret = shared.withUnsafeBytes { Array($0) }
        return secret.contains(where: { $0 != 0 }) ? secret : nil
    }

    private static func ephemeral(_ privateKey: [UInt8]) -> Curve25519.KeyAgreement.PrivateKey {
        precondition(privateKey.count == StateStream.ephemeralKeyLength, "an X25519 private key is 32 bytes")
        // Any 32 bytes are an X25519 private key.
        return try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKey)
    }

    /// The key id of a group key: the first 4 bytes of HKDF-SHA256(IKM = the group key,
    /// salt = `baton-handoff`, info = `v3 key id`, 32 bytes) (docs/PROTOCOL.md section 3).
    /// The stream's own copy until the datagram layer has one to share.
    static func keyID(of groupKey: GroupKey) -> [UInt8] {
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: groupKey.bytes), salt: Array("baton-handoff".utf8),
            info: Array("v3 key id".utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        return Array(derived.prefix(StateStream.keyIDLength))
    }
}
