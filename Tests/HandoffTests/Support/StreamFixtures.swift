import Crypto
@testable import Handoff
@testable import HandoffWire

/// Fixed inputs for the state-stream tests, and a way to run both machines against each other in memory.
enum StreamFixtures {
    static let clientNonce: [UInt8] = Array(0xD0...0xEF)
    static let serverNonce: [UInt8] = Array(0x10...0x2F)
    static let activityID = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"

    /// Bytes that are not all alike, so a cut, shifted or swapped range cannot compare equal.
    static func state(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return generator.bytes(count)
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// A shelf holding `state` as revision `revision` of `activityID`, and the request for it.
    static func shelf(_ state: [UInt8], revision: Int = 3) -> (StateShelf, StateRequest) {
        let shelf = StateShelf()
        let digest = digest(state)
        shelf.put(activityID: activityID, revision: revision, digest: digest, bytes: state)
        return (shelf, StateRequest(activityID: activityID, revision: revision, digest: digest, size: state.count))
    }

    /// What one whole in-memory session did.
    struct Session {
        /// Every byte the client sent, in order.
        var clientBytes: [UInt8] = []
        /// Every byte the server sent, in order.
        var serverBytes: [UInt8] = []
        /// The state bytes the client handed on.
        var data: [UInt8] = []
        var clientEnd: StateClientConnection.Output?
        var serverClose: StateServerConnection.CloseReason?
    }

    /// Runs `client` against `server` until neither has anything more to say.
    static func run(client: inout StateClientConnection, server: inout StateServerConnection) -> Session {
        var session = Session()
        var toServer = client.start()
        var serverClosed = false
        while !toServer.isEmpty {
            session.clientBytes += toServer
            var toClient: [UInt8] = []
            for output in server.receive(toServer) {
                switch output {
                case .write(let bytes): toClient += bytes
                case .startStreaming: while let frame = server.nextDataFrame() { toClient += frame }
                case .close(let reason): session.serverClose = reason; serverClosed = true
                }
            }
            toServer = []
            session.serverBytes += toClient
            guard !toClient.isEmpty else { break }
            for output in client.receive(toClient) {
                switch output {
                case .write(let bytes): toServer += bytes
                case .data(let body): session.data += body
                case .finished, .failed: session.clientEnd = output
                }
            }
            if serverClosed { break }
        }
        return session
    }

    /// A whole session for `state` with the fixed nonces and the golden group key.
    static func session(
        _ state: [UInt8], offset: Int = 0, clientKey: GroupKey = Fixtures.key, serverKey: GroupKey = Fixtures.key
    ) -> Session {
        let (shelf, request) = shelf(state)
        var client = StateClientConnection(groupKey: clientKey, request: request, offset: offset, nonce: clientNonce)
        var server = StateServerConnection(groupKey: serverKey, shelf: shelf, nonce: serverNonce)
        return run(client: &client, server: &server)
    }

    /// The keys of a session with the fixed nonces.
    static var keys: StateStreamKeys {
        StateStreamKeys(groupKey: Fixtures.key, clientNonce: clientNonce, serverNonce: serverNonce)
    }

    /// A client for `request` that has completed the handshake against a server with the fixed
    /// nonces, so a test can feed it frames it seals itself with `serverSealer`.
    static func handshakenClient(_ request: StateRequest, offset: Int = 0) -> StateClientConnection {
        var client = StateClientConnection(groupKey: Fixtures.key, request: request, offset: offset, nonce: clientNonce)
        let hello = client.start()
        let serverHello = StateStreamHandshake.serverHello(clientHello: hello, serverNonce: serverNonce, authKey: keys.auth)
        let outputs = client.receive(serverHello)
        precondition(outputs.count == 1, "the client answers a good ServerHello with its proof and GET")
        return client
    }

    static var serverSealer: StreamFrameSealer { StreamFrameSealer(key: keys.server) }
    static var clientSealer: StreamFrameSealer { StreamFrameSealer(key: keys.client) }

    /// A server that has read a good ClientHello and ClientProof with the fixed nonces, waiting for a GET.
    static func authenticatedServer(_ shelf: StateShelf) -> StateServerConnection {
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf, nonce: serverNonce)
        let hello = StateStreamHandshake.clientHello(nonce: clientNonce)
        _ = server.receive(hello)
        let serverHello = StateStreamHandshake.serverHello(clientHello: hello, serverNonce: serverNonce, authKey: keys.auth)
        let transcript = hello + serverHello.prefix(StateStream.clientHelloLength)
        _ = server.receive(StateStreamHandshake.proof(.client, transcript: transcript, authKey: keys.auth))
        precondition(server.isAuthenticated)
        return server
    }

    /// The messages in a run of server frames sealed with the fixed session's server key.
    static func serverMessages(_ bytes: [UInt8]) throws -> [StreamMessage] {
        var deframer = StreamDeframer(key: keys.server)
        deframer.append(bytes)
        var messages: [StreamMessage] = []
        while let plaintext = try deframer.next() { messages.append(try StreamMessage(plaintext: plaintext[...])) }
        return messages
    }
}
