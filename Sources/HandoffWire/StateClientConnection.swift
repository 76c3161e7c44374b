/// The continuing peer's side of one state-stream connection, without I/O: one attempt to
/// fetch `request` from byte `offset` on.
///
/// `start()` gives the ClientHello to write; every byte read goes to `receive`, whose outputs
/// are carried out in order. It checks that the ServerHello comes from the offering sender and
/// is signed by that device before it sends its own proof, sends one GET, and hands on the
/// state's bytes frame by frame as they open. A failure ends the attempt: `.connectionLost` may
/// be resumed on a new connection, the others may not.
public struct StateClientConnection: Sendable {
    public enum Output: Equatable, Sendable {
        /// Write these bytes.
        case write([UInt8])
        /// The next state bytes, in order, from a frame that opened.
        case data(ArraySlice<UInt8>)
        /// The whole state is held: close the connection.
        case finished
        /// The attempt is over: close the connection.
        case failed(StreamFailure)
    }

    private enum Phase: Sendable {
        case ready
        case awaitingServerHello(clientHello: [UInt8])
        case awaitingStart
        case receiving
        case done
    }

    private let identity: StreamIdentity
    private let groupKey: GroupKey
    private let source: StreamSource
    private let ephemeralKey: [UInt8]
    public let request: StateRequest
    /// The offset asked for: bytes held before this connection.
    public let offset: Int
    /// Bytes held now: the offset plus the DATA received on this connection.
    public private(set) var held: Int
    private var phase = Phase.ready
    private var pending: [UInt8] = []
    private var deframer = StreamDeframer(key: [])

    /// An attempt by `identity` to fetch `request` from byte `offset` (the bytes already held)
    /// from `source`, the device and sender of the OFFER, which was opened with `groupKey`.
    /// `ephemeralKey` is the connection's X25519 private key: fresh unless a test fixes it.
    public init(
        identity: StreamIdentity, groupKey: GroupKey, source: StreamSource, request: StateRequest, offset: Int,
        ephemeralKey: [UInt8] = StateStream.newEphemeralKey()
    ) {
        precondition(ephemeralKey.count == StateStream.ephemeralKeyLength, "an X25519 private key is 32 bytes")
        precondition(offset >= 0 && offset <= request.size, "the offset lies within the state")
        self.identity = identity
        self.groupKey = groupKey
        self.source = source
        self.request = request
        self.offset = offset
        self.held = offset
        self.ephemeralKey = ephemeralKey
    }

    /// Whether the server answered the GET with START: from then on the wait is for DATA.
    public var hasStarted: Bool {
        switch phase {
        case .receiving: true
        case .done: held == request.size
        case .ready, .awaitingServerHello, .awaitingStart: false
        }
    }

    /// Whether the attempt is over (finished or failed).
    public var isDone: Bool {
        if case .done = phase { return true }
        return false
    }

    /// The ClientHello, the first bytes to write.
    public mutating func start() -> [UInt8] {
        guard case .ready = phase else { preconditionFailure("start() is called once") }
        let hello = StateStreamHandshake.ClientHello(
            keyID: StateStreamHandshake.keyID(of: groupKey), senderID: identity.senderID,
            ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: ephemeralKey)
        ).bytes
        phase = .awaitingServerHello(clientHello: hello)
        return hello
    }

    /// Takes bytes read from the server and says what to do.
    public mutating func receive(_ bytes: [UInt8]) -> [Output] {
        receive(bytes, data: nil)
    }

    /// Takes bytes read from the server and says what to do, handing the state's bytes to
    /// `data` as each DATA frame opens rather than as `.data` outputs: they lie in the
    /// deframer's buffer, valid only during the call, so a fetcher hashes them there and
    /// copies them once, to where they stay. The outputs that follow them in order (a
    /// failure, `.finished`) are returned as usual.
    public mutating func receive(_ bytes: [UInt8], data: (UnsafeRawBufferPointer) -> Void) -> [Output] {
        withoutActuallyEscaping(data) { data in receive(bytes, data: .some(data)) }
    }

    private mutating func receive(_ bytes: [UInt8], data: ((UnsafeRawBufferPointer) -> Void)?) -> [Output] {
        var outputs: [Output] = []
        switch phase {
        case .ready, .done:
            break
        case .awaitingServerHello(let clientHello):
            pending.append(contentsOf: bytes)
            serverHello(clientHello, &outputs, data)
        case .awaitingStart, .receiving:
            deframer.append(bytes)
            frames(&outputs, data)
        }
        return outputs
    }

    /// Takes bytes read from the server and says what to do.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> [Output] {
        receive(Array(bytes))
    }

    private mutating func serverHello(
        _ clientHello: [UInt8], _ outputs: inout [Output], _ data: ((UnsafeRawBufferPointer) -> Void)?
    ) {
        if StateStreamHandshake.isRefusedHelloStart(pending[...]) {
            return fail(.badResponse("the ServerHello is not BTNS version 03"), &outputs)
        }
        guard pending.count >= StateStream.serverHelloLength else { return }
        let helloBytes = Array(pending[..<StateStream.serverHelloLength])
        guard let hello = StateStreamHandshake.ServerHello(helloBytes[...]) else {
            return fail(.badResponse("the ServerHello is not BTNS version 03"), &outputs)
        }
        // Another sender, even of the same device, is not the one that offered.
        guard hello.senderID == source.senderID,
            source.identity.isValidSignature(
                hello.signature, of: StateStreamHandshake.serverSigned(clientHello: clientHello, serverHello: hello))
        else { return fail(.authenticationFailed, &outputs) }
        guard let secret = StateStreamHandshake.sharedSecret(privateKey: ephemeralKey, publicKey: hello.ephemeralKey)
        else { return fail(.badResponse("the server's X25519 key is of low order"), &outputs) }
        let keys = StateStreamKeys(groupKey: groupKey, secret: secret, clientHello: clientHello, serverHello: helloBytes)
        let proof = identity.device.sign(
            StateStreamHandshake.clientSigned(clientHello: clientHello, serverHello: helloBytes))
        let rest = Array(pending[StateStream.serverHelloLength...])
        pending = []
        var sealer = StreamFrameSealer(key: keys.client)
        outputs.append(.write(proof + sealer.seal(.get(request, offset: offset))))
        deframer = StreamDeframer(key: keys.server)
        phase = .awaitingStart
        // A server never sends before it read the GET; bytes here can only fail as frames.
        if !rest.isEmpty {
            deframer.append(rest)
            frames(&outputs, data)
        }
    }

    private mutating func frames(_ outputs: inout [Output], _ data: ((UnsafeRawBufferPointer) -> Void)?) {
        while !isDone {
            do {
                guard try deframer.openNext() else { return }
            } catch {
                return fail(.connectionLost("\(error)"), &outputs)
            }
            if case .receiving = phase, let count = dataBodyCount() {
                // DATA, the bulk of the stream: read where it was opened.
                guard count <= request.size - held else {
                    return fail(.badResponse("DATA beyond the size of \(request.size) bytes"), &outputs)
                }
                held += count
                deframer.withPlaintext { plaintext in
                    let body = UnsafeRawBufferPointer(rebasing: plaintext[1...])
                    if let data { data(body) } else { outputs.append(.data(ArraySlice(body))) }
                }
                if held == request.size { finish(&outputs) }
                continue
            }
            let plaintext = deframer.withPlaintext { Array($0) }
            let message: StreamMessage
            do {
                message = try StreamMessage(plaintext: plaintext[...])
            } catch {
                switch error {
                case .unknownType(let type): return fail(.badResponse("a frame of unknown type \(type)"), &outputs)
                case .malformed(_, let reason): return fail(.badResponse(reason), &outputs)
                }
            }
            switch (phase, message) {
            case (.awaitingStart, .start(let size, let startOffset)):
                guard size == request.size, startOffset == offset else {
                    return fail(
                        .badResponse("START for \(size) bytes from \(startOffset), asked \(request.size) from \(offset)"),
                        &outputs)
                }
                phase = .receiving
                if held == request.size { finish(&outputs) }
            case (.awaitingStart, .error(let code, let text)), (.receiving, .error(let code, let text)):
                fail(code == .notFound ? .notFound : .refused(code: code.rawValue, message: text), &outputs)
            case (.receiving, .data(let body)):
                guard body.count <= request.size - held else {
                    return fail(.badResponse("DATA beyond the size of \(request.size) bytes"), &outputs)
                }
                held += body.count
                outputs.append(.data(body))
                if held == request.size { finish(&outputs) }
            case (.awaitingStart, .data):
                fail(.badResponse("DATA before START"), &outputs)
            case (_, .start):
                fail(.badResponse("a second START"), &outputs)
            default:
                fail(.badResponse("a GET from the server"), &outputs)
            }
        }
    }

    /// The body length of the frame just opened when it is a well-formed DATA frame, else nil.
    private func dataBodyCount() -> Int? {
        deframer.withPlaintext { plaintext in
            plaintext.count >= 2 && plaintext[0] == StreamMessage.dataType ? plaintext.count - 1 : nil
        }
    }

    private mutating func finish(_ outputs: inout [Output]) {
        phase = .done
        outputs.append(.finished)
    }

    private mutating func fail(_ failure: StreamFailure, _ outputs: inout [Output]) {
        phase = .done
        pending = []
        outputs.append(.failed(failure))
    }
}
