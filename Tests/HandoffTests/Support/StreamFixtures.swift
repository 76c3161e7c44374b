import Crypto
@testable import Handoff
@testable import HandoffWire

/// Fixed inputs for the state-stream tests, and a way to run both machines against each other in
/// memory: two devices (seeds `00…1f` and `20…3f`), their instances and fixed X25519 keys, as
/// `Vectors/golden/stream.json` has them.
enum StreamFixtures {
    static let clientEphemeral: [UInt8] = Array(0xD0...0xEF)
    static let serverEphemeral: [UInt8] = Array(0x10...0x2F)
    static let client = StreamIdentity(device: DeviceIdentity(seed: Array(0x00...0x1F))!, instance: Array(0xB0...0xB7))
    static let server = StreamIdentity(device: DeviceIdentity(seed: Array(0x20...0x3F))!, instance: Array(0xB8...0xBF))
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

    /// The server's trust: `keys` (the golden group key by default) and the client's device listed.
    static func trust(_ keys: [GroupKey] = [Fixtures.key], listing devices: [PublicIdentity] = [client.device.publicIdentity])
        -> StreamTrust
    {
        StreamTrust(groupKeys: keys, devices: devices)
    }

    /// The client machine with the fixed inputs, fetching from the fixed server.
    static func clientMachine(
        _ request: StateRequest, offset: Int = 0, key: GroupKey = Fixtures.key, identity: StreamIdentity = client,
        source: StreamSource = server.asSource
    ) -> StateClientConnection {
        StateClientConnection(
            identity: identity, groupKey: key, source: source, request: request, offset: offset,
            ephemeralKey: clientEphemeral)
    }

    /// The server machine with the fixed inputs.
    static func serverMachine(
        _ shelf: StateShelf, trust: StreamTrust = trust(), identity: StreamIdentity = server,
        ephemeralKey: [UInt8] = serverEphemeral
    ) -> StateServerConnection {
        StateServerConnection(identity: identity, trust: trust, shelf: shelf, ephemeralKey: ephemeralKey)
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
