import Crypto

/// The three keys of one state-stream connection, all HKDF-SHA256 of the group key
/// (docs/PROTOCOL.md, "Handshake"):
///
/// | key | salt | info |
/// | --- | --- | --- |
/// | auth | `baton-handoff` | `v2 stream auth` |
/// | client (client → server frames) | client nonce ‖ server nonce | `v2 stream client` |
/// | server (server → client frames) | client nonce ‖ server nonce | `v2 stream server` |
///
/// Kept as bytes: `SymmetricKey` is not declared `Sendable`, and the machines that hold
/// these keys are.
public struct StateStreamKeys: Equatable, Sendable {
    public let auth: [UInt8]
    public let client: [UInt8]
    public let server: [UInt8]

    public init(groupKey: GroupKey, clientNonce: [UInt8], serverNonce: [UInt8]) {
        auth = Self.authKey(groupKey)
        let salt = clientNonce + serverNonce
        client = Self.derive(groupKey, salt: salt, info: "v2 stream client")
        server = Self.derive(groupKey, salt: salt, info: "v2 stream server")
    }

    /// The key both proofs are made with; it depends on the group key alone.
    public static func authKey(_ groupKey: GroupKey) -> [UInt8] {
        derive(groupKey, salt: Array("baton-handoff".utf8), info: "v2 stream auth")
    }

    static func derive(_ groupKey: GroupKey, salt: [UInt8], info: String) -> [UInt8] {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: groupKey.bytes), salt: salt, info: Array(info.utf8),
            outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
    }
}

/// Building and checking the handshake's messages: ClientHello, ServerHello and ClientProof.
public enum StateStreamHandshake {
    /// Which side a proof speaks for: its ASCII label is the first bytes the HMAC covers.
    public enum Role: Sendable {
        case client, server

        var label: [UInt8] { Array((self == .client ? "client" : "server").utf8) }
    }

    /// The 8 bytes every hello starts with: `BTNS`, version `02`, `000000`.
    static let helloPrefix: [UInt8] = StateStream.magic + [StateStream.version, 0, 0, 0]

    /// A ClientHello: the prefix and the client nonce (40 bytes).
    public static func clientHello(nonce: [UInt8]) -> [UInt8] {
        precondition(nonce.count == StateStream.nonceLength, "a hello's nonce is 32 bytes")
        return helloPrefix + nonce
    }

    /// The nonce of a hello, or nil when its first 8 bytes are not exactly `BTNS 02 000000`:
    /// another magic, another version or a non-zero reserved byte is refused.
    public static func nonce(ofHello hello: ArraySlice<UInt8>) -> [UInt8]? {
        let start = hello.startIndex
        guard hello.count >= helloPrefix.count + StateStream.nonceLength,
            hello[start..<(start + helloPrefix.count)].elementsEqual(helloPrefix)
        else { return nil }
        let nonceStart = start + helloPrefix.count
        return Array(hello[nonceStart..<(nonceStart + StateStream.nonceLength)])
    }

    /// Whether the first bytes of a hello, however few have arrived, already differ from
    /// `BTNS 02 000000`; a peer need not wait for the rest to refuse it.
    public static func isRefusedHelloStart(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.prefix(helloPrefix.count).elementsEqual(helloPrefix.prefix(min(bytes.count, helloPrefix.count)))
    }

    /// A ServerHello answering `clientHello`: the prefix, the server nonce and the server proof (72 bytes).
    public static func serverHello(clientHello: [UInt8], serverNonce: [UInt8], authKey: [UInt8]) -> [UInt8] {
        precondition(serverNonce.count == StateStream.nonceLength, "a hello's nonce is 32 bytes")
        let head = helloPrefix + serverNonce
        return head + proof(.server, transcript: clientHello + head, authKey: authKey)
    }

    /// HMAC-SHA256(auth key, label ‖ transcript); the transcript is the ClientHello and the
    /// first 40 bytes of the ServerHello.
    public static func proof(_ role: Role, transcript: [UInt8], authKey: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: role.label + transcript, using: SymmetricKey(data: authKey)))
    }

    /// Whether `proof` is `role`'s proof over `transcript`, compared in constant time.
    public static func isValidProof(
        _ proof: ArraySlice<UInt8>, _ role: Role, transcript: [UInt8], authKey: [UInt8]
    ) -> Bool {
        guard proof.count == StateStream.proofLength else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            proof, authenticating: role.label + transcript, using: SymmetricKey(data: authKey))
    }
}
