import Crypto
import Testing
@testable import Handoff
@testable import HandoffWire

/// Both sides prove the group key before any state moves (docs/PROTOCOL.md section 10, "Handshake").
@Suite("State stream handshake")
struct StateStreamHandshakeTests {
    @Test("With the same key, the whole state arrives and the session's messages have their fixed sizes")
    func sameKey() throws {
        let state = StreamFixtures.state(200_000)
        let session = StreamFixtures.session(state)
        #expect(session.data == state)
        #expect(session.clientEnd == .finished)
        #expect(session.serverClose == nil)
        // ClientHello 40, then ClientProof 32 and the GET frame (4 + 1 + 48 + 36 + 16).
        #expect(session.clientBytes.count == 40 + 32 + 4 + 1 + 48 + StreamFixtures.activityID.utf8.count + 16)
        #expect(Array(session.clientBytes.prefix(8)) == [0x42, 0x54, 0x4E, 0x53, 0x02, 0, 0, 0])
        #expect(Array(session.serverBytes.prefix(8)) == [0x42, 0x54, 0x4E, 0x53, 0x02, 0, 0, 0])
        // ServerHello 72, START 4 + 17 + 16, four DATA frames.
        let frames = try StreamFixtures.serverMessages(Array(session.serverBytes.dropFirst(72)))
        #expect(frames.first == .start(size: 200_000, offset: 0))
        #expect(frames.dropFirst().map { if case .data(let body) = $0 { body.count } else { -1 } } == [65_535, 65_535, 65_535, 3_395])
    }

    @Test("The three keys differ, and the per-connection keys change with either nonce")
    func keys() {
        let keys = StreamFixtures.keys
        #expect(Set([keys.auth, keys.client, keys.server]).count == 3)
        #expect(keys.auth == StateStreamKeys.authKey(Fixtures.key))
        let otherServer = StateStreamKeys(groupKey: Fixtures.key, clientNonce: StreamFixtures.clientNonce, serverNonce: Array(repeating: 1, count: 32))
        let otherClient = StateStreamKeys(groupKey: Fixtures.key, clientNonce: Array(repeating: 1, count: 32), serverNonce: StreamFixtures.serverNonce)
        #expect(otherServer.auth == keys.auth && otherClient.auth == keys.auth)
        #expect(otherServer.client != keys.client && otherServer.server != keys.server)
        #expect(otherClient.client != keys.client && otherClient.server != keys.server)
        #expect(StateStreamKeys.authKey(Fixtures.otherKey) != keys.auth)
    }

    @Test("With another key, the client refuses the ServerHello and sends neither proof nor GET; nothing of the state leaves")
    func wrongKeyClientSide() {
        let session = StreamFixtures.session(StreamFixtures.state(5_000), clientKey: Fixtures.otherKey)
        #expect(session.clientEnd == .failed(.authenticationFailed))
        #expect(session.clientBytes.count == 40, "the ClientHello only")
        #expect(session.serverBytes.count == 72, "the ServerHello only")
        #expect(session.data.isEmpty)
    }

    @Test("A client proof made with another key closes the server before it reads a frame")
    func wrongKeyServerSide() {
        let (shelf, request) = StreamFixtures.shelf(StreamFixtures.state(5_000))
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf, nonce: StreamFixtures.serverNonce)
        let hello = StateStreamHandshake.clientHello(nonce: StreamFixtures.clientNonce)
        let outputs = server.receive(hello)
        guard case .write(let serverHello) = outputs.first else { Issue.record("no ServerHello"); return }
        // A client with the other key: its proof and its GET, sealed under its own keys.
        let wrong = StateStreamKeys(groupKey: Fixtures.otherKey, clientNonce: StreamFixtures.clientNonce, serverNonce: StreamFixtures.serverNonce)
        let transcript = hello + serverHello.prefix(40)
        var sealer = StreamFrameSealer(key: wrong.client)
        let proofAndGet = StateStreamHandshake.proof(.client, transcript: transcript, authKey: wrong.auth) + sealer.seal(.get(request, offset: 0))
        #expect(server.receive(proofAndGet) == [.close(.badProof)])
        #expect(!server.isAuthenticated)
        #expect(server.nextDataFrame() == nil)
        #expect(server.receive([1, 2, 3]) == [], "a closed connection takes nothing more")
    }

    @Test("A ClientHello and ClientProof replayed from a captured session are refused by the next connection")
    func replayedHandshake() {
        let state = StreamFixtures.state(5_000)
        let captured = StreamFixtures.session(state)
        #expect(captured.data == state)
        let (shelf, _) = StreamFixtures.shelf(state)
        // The same server nonce would let the capture pass; a fresh one (as every connection has) does not.
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf, nonce: Array(repeating: 0x77, count: 32))
        let outputs = server.receive(captured.clientBytes)
        #expect(outputs.count == 2)
        #expect(outputs.first.map { if case .write(let bytes) = $0 { bytes.count == 72 } else { false } } == true)
        #expect(outputs.last == .close(.badProof))
        #expect(!server.isAuthenticated)
    }

    @Test("A ClientHello with another magic, version or reserved byte is closed without a word", arguments: [0, 3, 4, 5, 7])
    func badClientHello(_ index: Int) {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        var hello = StateStreamHandshake.clientHello(nonce: StreamFixtures.clientNonce)
        hello[index] = index == 4 ? 0x03 : hello[index] ^ 0x01
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf)
        #expect(server.receive(hello) == [.close(.badHello)])
    }

    @Test("Version 01 and garbage are closed at the hello; a hello split anywhere is waited for")
    func versionsAndGarbage() {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        var v1 = StateStreamHandshake.clientHello(nonce: StreamFixtures.clientNonce)
        v1[4] = 0x01
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf)
        #expect(server.receive(v1) == [.close(.badHello)])

        var early = StateServerConnection(groupKey: Fixtures.key, shelf: shelf)
        #expect(early.receive([0x42, 0x54, 0x4E, 0x53]) == [])
        #expect(early.receive([0x03]) == [.close(.badHello)], "refused at the version byte, without waiting for the nonce")

        var garbage = StateServerConnection(groupKey: Fixtures.key, shelf: shelf)
        #expect(garbage.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n1234567890".utf8)) == [.close(.badHello)])

        let hello = StateStreamHandshake.clientHello(nonce: StreamFixtures.clientNonce)
        for cut in 0..<hello.count {
            var split = StateServerConnection(groupKey: Fixtures.key, shelf: shelf)
            #expect(split.receive(hello[..<cut]) == [])
            #expect(split.receive(hello[cut...]).count == 1)
        }
    }

    @Test("A ServerHello with another version, a bad proof or garbage fails the client, which sends nothing more")
    func badServerHello() {
        let request = StreamFixtures.shelf(StreamFixtures.state(10)).1
        let hello = StateStreamHandshake.clientHello(nonce: StreamFixtures.clientNonce)
        let good = StateStreamHandshake.serverHello(clientHello: hello, serverNonce: StreamFixtures.serverNonce, authKey: StreamFixtures.keys.auth)
        var version = good
        version[4] = 0x03
        var proof = good
        proof[71] ^= 0x01
        var nonce = good
        nonce[20] ^= 0x01
        var garbage = StreamFixtures.state(72, seed: 9)
        garbage[0] = 0x41
        // A proof is judged when all 72 bytes are in; a wrong magic or version as soon as its byte arrives.
        let notBTNS = StreamFailure.badResponse("the ServerHello is not BTNS version 02")
        let expected: [([UInt8], judgedAt: Int, StreamFailure)] = [
            (version, 5, notBTNS), (garbage, 1, notBTNS),
            (proof, 72, .authenticationFailed), (nonce, 72, .authenticationFailed),
        ]
        for (bytes, judgedAt, failure) in expected {
            var client = StateClientConnection(groupKey: Fixtures.key, request: request, offset: 0, nonce: StreamFixtures.clientNonce)
            _ = client.start()
            #expect(client.receive(bytes.prefix(judgedAt - 1)) == [])
            #expect(client.receive(bytes[(judgedAt - 1)...]) == [.failed(failure)])
            #expect(client.receive(good) == [], "a failed attempt takes nothing more")
        }
    }

    @Test("Bytes after a wrong proof are never read as frames")
    func nothingBeforeTheProof() {
        let (shelf, request) = StreamFixtures.shelf(StreamFixtures.state(10))
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf, nonce: StreamFixtures.serverNonce)
        var sealer = StreamFixtures.clientSealer
        let get = sealer.seal(.get(request, offset: 0))
        let all = StateStreamHandshake.clientHello(nonce: StreamFixtures.clientNonce) + [UInt8](repeating: 0, count: 32) + get
        let outputs = server.receive(all)
        #expect(outputs.count == 2 && outputs.last == .close(.badProof))
        #expect(!server.hasAnswered)
    }
}
