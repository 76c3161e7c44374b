/// What a continuation stream carries on after its handshake: this end's sealer and
/// deframer, with any bytes already read past the handshake, and who is at the other end.
public struct ContinuationLink: Sendable {
    public var sealer: StreamFrameSealer
    public var deframer: StreamDeframer
    /// The other end's sender id, as its hello carried it (its device's tag is proven).
    public let peerSenderID: SenderID
    /// The other end's device, whose signature verified.
    public let peerDevice: PublicIdentity

    public init(sealer: StreamFrameSealer, deframer: StreamDeframer, peerSenderID: SenderID, peerDevice: PublicIdentity) {
        self.sealer = sealer
        self.deframer = deframer
        self.peerSenderID = peerSenderID
        self.peerDevice = peerDevice
    }
}

/// A server's connection whose client asked for a continuation stream: the activity its OPEN
/// names and the link to carry the stream on. The server has answered nothing yet.
public struct ContinuationOpening: Sendable {
    public let activityID: String
    public var link: ContinuationLink

    public init(activityID: String, link: ContinuationLink) {
        self.activityID = activityID
        self.link = link
    }
}

/// The client's side of a continuation stream's handshake, without I/O: the same hellos and
/// proofs as a fetch (`StateClientConnection`), then the OPEN frame instead of GET.
public struct ContinuationClientHandshake: Sendable {
    public enum Output: Sendable {
        /// Write these bytes.
        case write([UInt8])
        /// The handshake is done and the OPEN written with the proof: carry the stream on this link.
        case established(ContinuationLink)
        /// The handshake failed: close the connection.
        case failed(StreamFailure)
    }

    private let identity: StreamIdentity
    private let groupKey: GroupKey
    private let source: StreamSource
    private let ephemeralKey: [UInt8]
    private let open: [UInt8]
    private var clientHello: [UInt8] = []
    private var pending: [UInt8] = []
    private var done = false

    /// A handshake by `identity` with `source`, under `groupKey`, whose first frame is `open`
    /// (an OPEN's plaintext, which the caller makes from the stream's machine).
    public init(
        identity: StreamIdentity, groupKey: GroupKey, source: StreamSource, open: [UInt8],
        ephemeralKey: [UInt8] = StateStream.newEphemeralKey()
    ) {
        self.identity = identity
        self.groupKey = groupKey
        self.source = source
        self.open = open
        self.ephemeralKey = ephemeralKey
    }

    /// The ClientHello, the first bytes to write.
    public mutating func start() -> [UInt8] {
        clientHello = StateStreamHandshake.ClientHello(
            keyID: StateStreamHandshake.keyID(of: groupKey), senderID: identity.senderID,
            ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: ephemeralKey)
        ).bytes
        return clientHello
    }

    /// Takes bytes read from the server; nothing until its hello is whole.
    public mutating func receive(_ bytes: [UInt8]) -> [Output] {
        guard !done, !clientHello.isEmpty else { return [] }
        pending.append(contentsOf: bytes)
        if StateStreamHandshake.isRefusedHelloStart(pending[...]) {
            return fail(.badResponse("the ServerHello is not BTNS version 03"))
        }
        guard pending.count >= StateStream.serverHelloLength else { return [] }
        let helloBytes = Array(pending[..<StateStream.serverHelloLength])
        guard let hello = StateStreamHandshake.ServerHello(helloBytes[...]) else {
            return fail(.badResponse("the ServerHello is not BTNS version 03"))
        }
        guard hello.senderID == source.senderID,
            source.identity.isValidSignature(
                hello.signature, of: StateStreamHandshake.serverSigned(clientHello: clientHello, serverHello: hello))
        else { return fail(.authenticationFailed) }
        guard let secret = StateStreamHandshake.sharedSecret(privateKey: ephemeralKey, publicKey: hello.ephemeralKey)
        else { return fail(.badResponse("the server's X25519 key is of low order")) }
        let keys = StateStreamKeys(groupKey: groupKey, secret: secret, clientHello: clientHello, serverHello: helloBytes)
        let proof = identity.device.sign(StateStreamHandshake.clientSigned(clientHello: clientHello, serverHello: helloBytes))
        var sealer = StreamFrameSealer(key: keys.client)
        var deframer = StreamDeframer(key: keys.server)
        deframer.append(pending[StateStream.serverHelloLength...])
        pending = []
        done = true
        let first = proof + sealer.seal(open)
        let link = ContinuationLink(sealer: sealer, deframer: deframer, peerSenderID: hello.senderID, peerDevice: source.identity)
        return [.write(first), .established(link)]
    }

    private mutating func fail(_ failure: StreamFailure) -> [Output] {
        done = true
        pending = []
        return [.failed(failure)]
    }
}

extension ContinuationOpening: Equatable {
    /// The same activity asked for by the same sender (the links' keys are not compared).
    public static func == (lhs: ContinuationOpening, rhs: ContinuationOpening) -> Bool {
        lhs.activityID == rhs.activityID && lhs.link.peerSenderID == rhs.link.peerSenderID && lhs.link.peerDevice == rhs.link.peerDevice
    }
}
