import HandoffTesting
@testable import HandoffWire

/// Whole state-stream sessions in memory, and the fixed session's handshake, on the fixed
/// inputs of `StreamFixtures`.
extension StreamFixtures {
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
                case .openStream: serverClosed = true  // only GETs here: never reached
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

    /// A whole session for `state` with the fixed inputs; `clientKey` is the group key the
    /// client opened the OFFER with, `serverKeys` those the server holds.
    static func session(
        _ state: [UInt8], offset: Int = 0, clientKey: GroupKey = Fixtures.key, serverKeys: [GroupKey] = [Fixtures.key]
    ) -> Session {
        let (shelf, request) = shelf(state)
        var client = clientMachine(request, offset: offset, key: clientKey)
        var server = serverMachine(shelf, trust: trust(serverKeys))
        return run(client: &client, server: &server)
    }

    /// The fixed session's ClientHello.
    static var clientHello: [UInt8] {
        StateStreamHandshake.ClientHello(
            keyID: StateStreamHandshake.keyID(of: Fixtures.key), senderID: client.senderID,
            ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: clientEphemeral)
        ).bytes
    }

    /// The fixed session's ServerHello.
    static var serverHello: [UInt8] {
        StateStreamHandshake.ServerHello(
            answering: clientHello, identity: server, ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: serverEphemeral)
        ).bytes
    }

    /// The fixed session's ClientProof.
    static var clientProof: [UInt8] {
        client.device.sign(StateStreamHandshake.clientSigned(clientHello: clientHello, serverHello: serverHello))
    }

    /// The keys of the fixed session.
    static var keys: StateStreamKeys {
        let secret = StateStreamHandshake.sharedSecret(
            privateKey: clientEphemeral, publicKey: StateStreamHandshake.publicKey(ofEphemeral: serverEphemeral))!
        return StateStreamKeys(groupKey: Fixtures.key, secret: secret, clientHello: clientHello, serverHello: serverHello)
    }

    /// A client for `request` that has completed the handshake against the fixed server, so a
    /// test can feed it frames it seals itself with `serverSealer`.
    static func handshakenClient(_ request: StateRequest, offset: Int = 0) -> StateClientConnection {
        var client = clientMachine(request, offset: offset)
        precondition(client.start() == clientHello)
        let outputs = client.receive(serverHello)
        precondition(outputs.count == 1, "the client answers a good ServerHello with its proof and GET")
        return client
    }

    static var serverSealer: StreamFrameSealer { StreamFrameSealer(key: keys.server) }
    static var clientSealer: StreamFrameSealer { StreamFrameSealer(key: keys.client) }

    /// A server that has read the fixed ClientHello and ClientProof, waiting for a GET.
    static func authenticatedServer(_ shelf: StateShelf) -> StateServerConnection {
        var server = serverMachine(shelf)
        _ = server.receive(clientHello)
        _ = server.receive(clientProof)
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
