import Crypto

/// The source's side of one state-stream connection, without I/O: bytes in, bytes to write out.
///
/// The I/O layer hands it every byte read (split anywhere) and carries out what `receive`
/// returns, in order. After `.startStreaming` it pulls DATA frames with `nextDataFrame()` only
/// as fast as the socket takes them, so a 16 MiB state is never sealed ahead of the network.
/// Nothing after the handshake is read before the client's signature verified with the public
/// identity of a listed device, and a connection that breaks any rule of docs/PROTOCOL.md
/// section 10 is closed.
public struct StateServerConnection: Sendable {
    /// What the I/O layer does next.
    public enum Output: Equatable, Sendable {
        /// Write these bytes.
        case write([UInt8])
        /// START was written: pull DATA frames with `nextDataFrame()` while the socket takes them.
        case startStreaming
        /// Close the connection (after writing what came before).
        case close(CloseReason)
        /// The client asked for a continuation stream: the connection is the stream's from now on,
        /// carried on the opening's link; this machine takes no more bytes.
        case openStream(ContinuationOpening)
    }

    private enum Phase: Sendable {
        case awaitingHello
        case awaitingProof(signed: [UInt8], client: PublicIdentity, sender: SenderID, keys: StateStreamKeys)
        case awaitingGet(client: PublicIdentity, sender: SenderID)
        case streaming
        case handedOver
        case closed
    }

    private let identity: StreamIdentity
    private let trust: StreamTrust
    private let shelf: StateShelf
    private let ephemeralKey: [UInt8]
    private var phase = Phase.awaitingHello
    /// Handshake bytes not yet used.
    private var pending: [UInt8] = []
    private var deframer = StreamDeframer(key: [])
    private var sealer = StreamFrameSealer(key: [])
    private var state: [UInt8] = []
    private var position = 0
    /// While a state made again is served: SHA-256 of its bytes up to `position`, and the
    /// digest they must have before the last DATA frame goes out.
    private var check: (hasher: RunningSHA256, digest: [UInt8])?

    /// A connection just accepted by `identity`, serving `shelf` to the devices `trust` lists.
    /// `ephemeralKey` is the connection's X25519 private key: fresh unless a test fixes it.
    public init(
        identity: StreamIdentity, trust: StreamTrust, shelf: StateShelf,
        ephemeralKey: [UInt8] = StateStream.newEphemeralKey()
    ) {
        precondition(ephemeralKey.count == StateStream.ephemeralKeyLength, "an X25519 private key is 32 bytes")
        self.identity = identity
        self.trust = trust
        self.shelf = shelf
        self.ephemeralKey = ephemeralKey
    }

    /// Whether the client's signature verified.
    public var isAuthenticated: Bool {
        switch phase {
        case .awaitingGet, .streaming, .handedOver: true
        case .awaitingHello, .awaitingProof, .closed: false
        }
    }

    /// Whether a GET was answered with START and DATA frames are still to come.
    public var isStreaming: Bool {
        if case .streaming = phase { return position < state.count }
        return false
    }

    /// Whether the GET was answered (START or ERROR); the handshake deadline no longer applies.
    public private(set) var hasAnswered = false

    /// Why the connection was closed, once it was for a reason (not after the last DATA frame).
    public private(set) var closeReason: CloseReason?

    /// Whether an OPEN handed the connection to a continuation stream.
    public var isHandedOver: Bool {
        if case .handedOver = phase { return true }
        return false
    }

    /// Whether the connection is over for this side (an error, or everything sent).
    public var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// State bytes not yet sealed into DATA frames.
    public var remainingBytes: Int { isStreaming ? state.count - position : 0 }

    /// Takes bytes read from the client and says what to do.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> [Output] {
        var outputs: [Output] = []
        switch phase {
        case .awaitingHello, .awaitingProof:
            pending.append(contentsOf: bytes)
            handshake(&outputs)
        case .awaitingGet, .streaming:
            deframer.append(bytes)
            frames(&outputs)
        case .handedOver, .closed:
            break
        }
        return outputs
    }

    /// The client's stream ended: nothing more will arrive.
    public mutating func receiveEnd() -> [Output] {
        switch phase {
        case .awaitingHello, .awaitingProof, .awaitingGet:
            phase = .closed
            return [.close(.clientClosed)]
        case .streaming, .handedOver, .closed:
            // A client that has all it needs closes; so does one that gave up. Nothing to answer.
            return []
        }
    }

    /// Bytes of the next DATA frame, sealed, or nil when the whole state has been pulled.
    public var nextDataFrameLength: Int? {
        guard case .streaming = phase, position < state.count else { return nil }
        let body = min(state.count - position, StateStream.maximumDataLength)
        return StreamFrameSealer.frameLength(plaintextCount: 1 + body)
    }

    /// Seals the next DATA frame into the start of `out` (room for `nextDataFrameLength`
    /// bytes), reading the state where it lies: its bytes are not copied on the way. Returns
    /// the bytes written, 0 when the whole state has been pulled.
    public mutating func sealNextDataFrame(into out: UnsafeMutableRawBufferPointer) -> Int {
        guard case .streaming = phase, position < state.count else { return 0 }
        let end = min(state.count, position + StateStream.maximumDataLength)
        let start = position
        if check != nil {
            // Hashed here, as the bytes pass on their way to the cipher, not in a pass before.
            state.withUnsafeBytes { check!.hasher.value.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            if end == state.count {
                guard let check, Array(check.hasher.value.finalize()) == check.digest else {
                    // The client holds all but the last frame; without it, nothing is restored.
                    var ignored: [Output] = []
                    close(.stateMismatch, &ignored)
                    return 0
                }
                self.check = nil
            }
        }
        var type = StreamMessage.dataType
        let written = withUnsafeBytes(of: &type) { head in
            state.withUnsafeBytes { state in
                sealer.seal(head: head, body: UnsafeRawBufferPointer(rebasing: state[start..<end]), into: out)
            }
        }
        position = end
        if position == state.count { state = [] }
        return written
    }

    /// The next DATA frame to write, sealed, or nil when the whole state has been pulled.
    public mutating func nextDataFrame() -> [UInt8]? {
        guard let length = nextDataFrameLength else { return nil }
        let frame = [UInt8](unsafeUninitializedCapacity: length) { out, count in
            count = sealNextDataFrame(into: UnsafeMutableRawBufferPointer(out))
        }
        return frame.isEmpty ? nil : frame
    }

    private mutating func handshake(_ outputs: inout [Output]) {
        if case .awaitingHello = phase {
            if StateStreamHandshake.isRefusedHelloStart(pending[...]) { return close(.badHello, &outputs) }
            guard pending.count >= StateStream.clientHelloLength else { return }
            let helloBytes = Array(pending[..<StateStream.clientHelloLength])
            guard let hello = StateStreamHandshake.ClientHello(helloBytes[...]) else {
                return close(.badHello, &outputs)
            }
            pending.removeFirst(StateStream.clientHelloLength)
            guard let groupKey = trust.groupKey(keyID: hello.keyID) else { return close(.unknownKeyID, &outputs) }
            guard let client = trust.listedDevice(Array(hello.senderID.bytes.prefix(StateStream.deviceTagLength)))
            else { return close(.unlistedDevice, &outputs) }
            guard let secret = StateStreamHandshake.sharedSecret(privateKey: ephemeralKey, publicKey: hello.ephemeralKey)
            else { return close(.lowOrderKey, &outputs) }
            let serverHello = StateStreamHandshake.ServerHello(
                answering: helloBytes, identity: identity,
                ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: ephemeralKey)
            ).bytes
            let keys = StateStreamKeys(groupKey: groupKey, secret: secret, clientHello: helloBytes, serverHello: serverHello)
            phase = .awaitingProof(
                signed: StateStreamHandshake.clientSigned(clientHello: helloBytes, serverHello: serverHello),
                client: client, sender: hello.senderID, keys: keys)
            outputs.append(.write(serverHello))
        }
        guard case .awaitingProof(let signed, let client, let sender, let keys) = phase, pending.count >= StateStream.proofLength
        else { return }
        guard client.isValidSignature(Array(pending[..<StateStream.proofLength]), of: signed) else {
            return close(.badProof, &outputs)
        }
        let rest = pending[StateStream.proofLength...]
        pending = []
        deframer = StreamDeframer(key: keys.client)
        sealer = StreamFrameSealer(key: keys.server)
        phase = .awaitingGet(client: client, sender: sender)
        deframer.append(rest)
        frames(&outputs)
    }

    private mutating func frames(_ outputs: inout [Output]) {
        while !isClosed, !isHandedOver {
            let plaintext: [UInt8]
            do {
                guard let next = try deframer.next() else { return }
                plaintext = next
            } catch {
                return close(.badFrame(error), &outputs)
            }
            guard case .awaitingGet(let client, let sender) = phase else {
                // The client's first and only frame is GET.
                return answer(.badRequest, "the client sends one frame, a GET", &outputs)
            }
            if plaintext.first == ContinuationFrame.openType {
                guard case .open(let activityID)? = try? ContinuationFrame(plaintext: plaintext[...]) else {
                    return answer(.badRequest, "malformed OPEN", &outputs)
                }
                // From here on the frames are the continuation stream's, read by its own machine.
                hasAnswered = true
                phase = .handedOver
                let link = ContinuationLink(sealer: sealer, deframer: deframer, peerSenderID: sender, peerDevice: client)
                deframer = StreamDeframer(key: [])
                return outputs.append(.openStream(ContinuationOpening(activityID: activityID, link: link)))
            }
            let message: StreamMessage
            do {
                message = try StreamMessage(plaintext: plaintext[...])
            } catch {
                return answer(.badRequest, "malformed GET", &outputs)
            }
            guard case .get(let activityID, let revision, let offset, let digest) = message else {
                return answer(.badRequest, "the first frame must be a GET", &outputs)
            }
            guard let servable = shelf.servable(StateShelf.Key(requested: activityID), revision: revision, digest: digest) else {
                return answer(.notFound, "no state kept for this activity, revision and digest", &outputs)
            }
            let kept = servable.bytes
            guard offset <= kept.count else {
                return answer(.badRequest, "offset \(offset) is beyond the size \(kept.count)", &outputs)
            }
            if let expected = servable.unchecked {
                // A state made again: checked as its DATA frames are sealed, from byte 0 on.
                var hasher = SHA256()
                kept.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<offset])) }
                if offset == kept.count, Array(hasher.finalize()) != expected {
                    return answer(.notFound, "no state kept for this activity, revision and digest", &outputs)
                }
                check = offset < kept.count ? (RunningSHA256(value: hasher), expected) : nil
            }
            hasAnswered = true
            state = kept
            position = offset
            phase = .streaming
            outputs.append(.write(sealer.seal(.start(size: kept.count, offset: offset))))
            outputs.append(.startStreaming)
        }
    }

    private mutating func answer(_ code: StreamErrorCode, _ message: String, _ outputs: inout [Output]) {
        hasAnswered = true
        outputs.append(.write(sealer.seal(.error(code, message: message))))
        close(.answeredError(code), &outputs)
    }

    private mutating func close(_ reason: CloseReason, _ outputs: inout [Output]) {
        phase = .closed
        closeReason = reason
        check = nil
        state = []
        pending = []
        outputs.append(.close(reason))
    }
}

