import Crypto
import HandoffTesting
import Testing
@testable import Handoff
@testable import HandoffWire

/// Both devices prove themselves with their signing keys, and the stream's keys come from a fresh
/// X25519 exchange mixed with the group key (docs/PROTOCOL.md section 10, "Handshake").
@Suite("State stream handshake")
struct StateStreamHandshakeTests {
    typealias Hello = StateStreamHandshake

    static let prefix: [UInt8] = [0x42, 0x54, 0x4E, 0x53, 0x03, 0, 0, 0]

    /// A third device: listed nowhere, but it holds the group key.
    static let stranger = StreamIdentity(device: DeviceIdentity(seed: Array(0x40...0x5F))!, instance: Array(0xC0...0xC7))
    static let strangerEphemeral: [UInt8] = Array(0x60...0x7F)

    static func written(_ outputs: [StateServerConnection.Output]) -> [UInt8]? {
        guard case .write(let bytes)? = outputs.first else { return nil }
        return bytes
    }

    @Test("Between two listed devices the whole state arrives, and the session's messages have their fixed sizes")
    func twoDevices() throws {
        let state = StreamFixtures.state(200_000)
        let session = StreamFixtures.session(state)
        #expect(session.data == state)
        #expect(session.clientEnd == .finished)
        #expect(session.serverClose == nil)
        // ClientHello 60, then ClientProof 64 and the GET frame (4 + 1 + 48 + 36 + 16).
        #expect(session.clientBytes.count == 60 + 64 + 4 + 1 + 48 + StreamFixtures.activityID.utf8.count + 16)
        #expect(Array(session.clientBytes.prefix(60)) == StreamFixtures.clientHello)
        #expect(Array(session.clientBytes[60..<124]) == StreamFixtures.clientProof)
        #expect(Array(session.serverBytes.prefix(120)) == StreamFixtures.serverHello)
        #expect(Array(session.clientBytes.prefix(8)) == Self.prefix && Array(session.serverBytes.prefix(8)) == Self.prefix)
        // The ClientHello carries the key id, the client's sender id and its ephemeral public key.
        #expect(Array(session.clientBytes[8..<12]) == Hello.keyID(of: Fixtures.key))
        #expect(Array(session.clientBytes[12..<28]) == StreamFixtures.client.senderID.bytes)
        #expect(Array(session.clientBytes[28..<60]) == Hello.publicKey(ofEphemeral: StreamFixtures.clientEphemeral))
        #expect(Array(session.serverBytes[8..<24]) == StreamFixtures.server.senderID.bytes)
        // ServerHello 120, START 4 + 17 + 16, four DATA frames.
        let frames = try StreamFixtures.serverMessages(Array(session.serverBytes.dropFirst(120)))
        #expect(frames.first == .start(size: 200_000, offset: 0))
        #expect(frames.dropFirst().map { if case .data(let body) = $0 { body.count } else { -1 } } == [65_535, 65_535, 65_535, 3_395])
    }

    @Test("The two keys differ, and change with the group key, either ephemeral key and either hello")
    func keys() {
        let keys = StreamFixtures.keys
        #expect(keys.client != keys.server)
        let secret = Hello.sharedSecret(
            privateKey: StreamFixtures.serverEphemeral, publicKey: Hello.publicKey(ofEphemeral: StreamFixtures.clientEphemeral))!
        let (clientHello, serverHello) = (StreamFixtures.clientHello, StreamFixtures.serverHello)
        #expect(StateStreamKeys(groupKey: Fixtures.key, secret: secret, clientHello: clientHello, serverHello: serverHello) == keys,
            "both sides reach the same secret")
        var otherHello = serverHello
        otherHello[119] ^= 1
        let variants = [
            StateStreamKeys(groupKey: Fixtures.otherKey, secret: secret, clientHello: clientHello, serverHello: serverHello),
            StateStreamKeys(
                groupKey: Fixtures.key,
                secret: Hello.sharedSecret(privateKey: Self.strangerEphemeral, publicKey: Hello.publicKey(ofEphemeral: StreamFixtures.serverEphemeral))!,
                clientHello: clientHello, serverHello: serverHello),
            StateStreamKeys(groupKey: Fixtures.key, secret: secret, clientHello: clientHello, serverHello: otherHello),
        ]
        for variant in variants {
            #expect(variant.client != keys.client && variant.server != keys.server)
        }
    }

    @Test("The key id is the first 4 bytes of HKDF(group key, baton-handoff, v3 key id)")
    func keyID() {
        let full = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Fixtures.key.bytes), salt: Array("baton-handoff".utf8),
            info: Array("v3 key id".utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        #expect(Hello.keyID(of: Fixtures.key) == Array(full.prefix(4)))
        #expect(Hello.keyID(of: Fixtures.otherKey) != Hello.keyID(of: Fixtures.key))
    }

    // MARK: - The server's refusals

    @Test("A ClientHello of version 02 is closed at its version byte, without a word")
    func version02() {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        var v2 = StreamFixtures.clientHello
        v2[4] = 0x02
        var early = StreamFixtures.serverMachine(shelf)
        #expect(early.receive(v2.prefix(4)) == [])
        #expect(early.receive(v2[4...]) == [.close(.badHello)], "refused at the version byte, without waiting for the rest")
        // A whole version-2 ClientHello (40 bytes: prefix and nonce) is refused the same way.
        var whole = StreamFixtures.serverMachine(shelf)
        #expect(whole.receive([0x42, 0x54, 0x4E, 0x53, 0x02, 0, 0, 0] + Array(0xD0...0xEF)) == [.close(.badHello)])
    }

    @Test("A ClientHello with another magic, version or reserved byte is closed without a word", arguments: [0, 3, 4, 5, 7])
    func badClientHello(_ index: Int) {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        var hello = StreamFixtures.clientHello
        hello[index] ^= 0x01
        var server = StreamFixtures.serverMachine(shelf)
        #expect(server.receive(hello) == [.close(.badHello)])
    }

    @Test("Garbage is closed at the hello; a hello split anywhere is waited for")
    func garbageAndSplits() {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        var garbage = StreamFixtures.serverMachine(shelf)
        #expect(garbage.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n1234567890".utf8)) == [.close(.badHello)])
        let hello = StreamFixtures.clientHello
        for cut in 0..<hello.count {
            var split = StreamFixtures.serverMachine(shelf)
            #expect(split.receive(hello[..<cut]) == [])
            #expect(Self.written(split.receive(hello[cut...])) == StreamFixtures.serverHello, "cut at \(cut)")
        }
    }

    @Test("A key id naming no group key the server holds is closed without a word; the previous key is accepted")
    func keyIDs() {
        let state = StreamFixtures.state(5_000)
        let unknown = StreamFixtures.session(state, clientKey: Fixtures.otherKey)
        #expect(unknown.serverClose == .unknownKeyID)
        #expect(unknown.serverBytes.isEmpty, "no ServerHello")
        #expect(unknown.clientEnd == nil && unknown.data.isEmpty)

        // A server that holds a new key and keeps the previous one serves a client with either.
        for clientKey in [Fixtures.key, Fixtures.otherKey] {
            let session = StreamFixtures.session(state, clientKey: clientKey, serverKeys: [Fixtures.otherKey, Fixtures.key])
            #expect(session.data == state)
            #expect(session.clientEnd == .finished)
        }
    }

    @Test("A client whose tag is not listed is closed without a word, before any ServerHello")
    func clientNotListed() {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        // The server lists only itself.
        var server = StreamFixtures.serverMachine(
            shelf, trust: StreamFixtures.trust(listing: [StreamFixtures.server.device.publicIdentity]))
        #expect(server.receive(StreamFixtures.clientHello) == [.close(.unlistedDevice)])
        #expect(!server.isAuthenticated)
    }

    @Test("A ClientProof that is not the listed client's signature closes the server before it reads a frame")
    func wrongClientSignature() {
        let (shelf, request) = StreamFixtures.shelf(StreamFixtures.state(5_000))
        let signed = Hello.clientSigned(clientHello: StreamFixtures.clientHello, serverHello: StreamFixtures.serverHello)
        var flipped = StreamFixtures.clientProof
        flipped[10] ^= 0x01
        let proofs = [
            flipped,
            // Another device's signature over the right bytes.
            Self.stranger.device.sign(signed),
            // The client's signature over another ServerHello (the one a server with another ephemeral key sends).
            StreamFixtures.client.device.sign(Array(signed.dropLast()) + [signed.last! ^ 1]),
        ]
        for proof in proofs {
            var server = StreamFixtures.serverMachine(shelf)
            #expect(Self.written(server.receive(StreamFixtures.clientHello)) == StreamFixtures.serverHello)
            var sealer = StreamFixtures.clientSealer
            #expect(server.receive(proof + sealer.seal(.get(request, offset: 0))) == [.close(.badProof)])
            #expect(!server.isAuthenticated && !server.hasAnswered)
            #expect(server.nextDataFrame() == nil)
            #expect(server.receive([1, 2, 3]) == [], "a closed connection takes nothing more")
        }
    }

    @Test("A low-order X25519 key from the client closes the server without a word", arguments: [0, 1])
    func lowOrderClientKey(_ u: UInt8) {
        let (shelf, _) = StreamFixtures.shelf(StreamFixtures.state(10))
        let hello = Hello.ClientHello(
            keyID: Hello.keyID(of: Fixtures.key), senderID: StreamFixtures.client.senderID,
            ephemeralKey: [u] + [UInt8](repeating: 0, count: 31))
        var server = StreamFixtures.serverMachine(shelf)
        #expect(server.receive(hello.bytes) == [.close(.lowOrderKey)])
    }

    @Test("A ClientHello and ClientProof replayed from a captured session are refused by the next connection")
    func replayedHandshake() {
        let state = StreamFixtures.state(5_000)
        let captured = StreamFixtures.session(state)
        #expect(captured.data == state)
        let (shelf, _) = StreamFixtures.shelf(state)
        // The same server ephemeral key would let the capture pass; a fresh one (as every connection has) does not.
        var server = StreamFixtures.serverMachine(shelf, ephemeralKey: Array(repeating: 0x77, count: 32))
        let outputs = server.receive(captured.clientBytes)
        #expect(outputs.count == 2)
        #expect(Self.written(outputs)?.count == 120)
        #expect(outputs.last == .close(.badProof))
        #expect(!server.isAuthenticated)
    }

    @Test("Bytes after a wrong proof are never read as frames")
    func nothingBeforeTheProof() {
        let (shelf, request) = StreamFixtures.shelf(StreamFixtures.state(10))
        var server = StreamFixtures.serverMachine(shelf)
        var sealer = StreamFixtures.clientSealer
        let get = sealer.seal(.get(request, offset: 0))
        let outputs = server.receive(StreamFixtures.clientHello + [UInt8](repeating: 0, count: 64) + get)
        #expect(outputs.count == 2 && outputs.last == .close(.badProof))
        #expect(!server.hasAnswered)
    }

    // MARK: - The client's refusals

    /// A ServerHello with `senderID` and `ephemeralKey`, signed by `device` over the fixed ClientHello.
    static func serverHello(
        senderID: SenderID = StreamFixtures.server.senderID,
        ephemeralKey: [UInt8] = Hello.publicKey(ofEphemeral: StreamFixtures.serverEphemeral),
        signedBy device: DeviceIdentity = StreamFixtures.server.device
    ) -> [UInt8] {
        let head = Self.prefix + senderID.bytes + ephemeralKey
        return head + device.sign(Hello.serverLabel + StreamFixtures.clientHello + head)
    }

    @Test("The ServerHello the client checks is exactly what the server machine sends")
    func serverHelloLayout() {
        #expect(Self.serverHello() == StreamFixtures.serverHello)
    }

    @Test("A ServerHello of another version, from another sender, with a wrong signature or a low-order key fails the client, which sends nothing more")
    func badServerHello() {
        let request = StreamFixtures.shelf(StreamFixtures.state(10)).1
        let good = StreamFixtures.serverHello
        var version = good
        version[4] = 0x02
        var garbage = StreamFixtures.state(120, seed: 9)
        garbage[0] = 0x41
        var flippedSignature = good
        flippedSignature[119] ^= 0x01
        var swappedKey = good
        swappedKey[30] ^= 0x01
        // Another process of the same device (same tag, another instance), signing correctly.
        let otherInstance = StreamIdentity(device: StreamFixtures.server.device, instance: Array(repeating: 9, count: 8))
        let otherSender = Self.serverHello(senderID: otherInstance.senderID)
        // A listed device that is not the one that offered: its own sender id and signature.
        let otherDevice = Self.serverHello(senderID: StreamFixtures.client.senderID, signedBy: StreamFixtures.client.device)
        // The offering sender's id, signed by another device.
        let otherSigner = Self.serverHello(signedBy: Self.stranger.device)
        // A low-order key, signed by the right device.
        let lowOrder = Self.serverHello(ephemeralKey: [UInt8](repeating: 0, count: 32))
        // A wrong magic or version is judged as soon as its byte arrives; the rest when all 120 bytes are in.
        let notBTNS = StreamFailure.badResponse("the ServerHello is not BTNS version 03")
        let expected: [([UInt8], judgedAt: Int, StreamFailure)] = [
            (version, 5, notBTNS), (garbage, 1, notBTNS),
            (otherSender, 120, .authenticationFailed), (otherDevice, 120, .authenticationFailed),
            (otherSigner, 120, .authenticationFailed), (flippedSignature, 120, .authenticationFailed),
            (swappedKey, 120, .authenticationFailed),
            (lowOrder, 120, .badResponse("the server's X25519 key is of low order")),
        ]
        for (bytes, judgedAt, failure) in expected {
            var client = StreamFixtures.clientMachine(request)
            _ = client.start()
            #expect(client.receive(bytes.prefix(judgedAt - 1)) == [])
            #expect(client.receive(bytes[(judgedAt - 1)...]) == [.failed(failure)])
            #expect(!failure.isPassing, "a failed handshake ends the fetch")
            #expect(client.receive(good) == [], "a failed attempt takes nothing more")
        }
    }

    // MARK: - Someone in the middle who holds the group key

    @Test("In the middle, swapping ephemeral keys: the client refuses the server's signature, and the server the stranger's proof")
    func middleSwappingKeys() throws {
        let (shelf, request) = StreamFixtures.shelf(StreamFixtures.state(5_000))
        var client = StreamFixtures.clientMachine(request)
        var server = StreamFixtures.serverMachine(shelf)
        let strangerPublic = Hello.publicKey(ofEphemeral: Self.strangerEphemeral)

        // The client's hello reaches the server with the stranger's key in place of the client's.
        let clientHello = client.start()
        var toServer = clientHello
        toServer.replaceSubrange(28..<60, with: strangerPublic)
        let serverHello = try #require(Self.written(server.receive(toServer)))
        // The stranger can compute a secret with each side now, so it passes the server's key on swapped too.
        #expect(Hello.sharedSecret(privateKey: Self.strangerEphemeral, publicKey: Array(serverHello[24..<56])) != nil)
        var toClient = serverHello
        toClient.replaceSubrange(24..<56, with: strangerPublic)
        #expect(client.receive(toClient) == [.failed(.authenticationFailed)], "the server signed another ClientHello and key")
        // Passed on unchanged, the ServerHello still covers the hello the server saw, not the client's.
        var unchanged = StreamFixtures.clientMachine(request)
        _ = unchanged.start()
        #expect(unchanged.receive(serverHello) == [.failed(.authenticationFailed)])

        // The stranger finishes the handshake itself with the client's sender id: its proof is not the client's.
        let proof = Self.stranger.device.sign(Hello.clientSigned(clientHello: toServer, serverHello: serverHello))
        #expect(server.receive(proof) == [.close(.badProof)])
        #expect(!server.isAuthenticated)
        #expect(server.nextDataFrame() == nil)
    }

    @Test("In the middle, passing bytes on unchanged: the handshake completes, and nothing the stranger can derive opens a frame")
    func middlePassingOn() throws {
        let state = StreamFixtures.state(5_000)
        let session = StreamFixtures.session(state)
        #expect(session.data == state)
        let clientHello = Array(session.clientBytes.prefix(60)), serverHello = Array(session.serverBytes.prefix(120))
        let get = Array(session.clientBytes.dropFirst(124)), start = Array(session.serverBytes.dropFirst(120))
        // With the group key and the two public keys, the stranger's best guesses at the secret.
        let guesses: [[UInt8]] = [
            Hello.sharedSecret(privateKey: Self.strangerEphemeral, publicKey: Array(clientHello[28..<60]))!,
            Hello.sharedSecret(privateKey: Self.strangerEphemeral, publicKey: Array(serverHello[24..<56]))!,
            [UInt8](repeating: 0, count: 32),
            Array(clientHello[28..<60]),
            Array(serverHello[24..<56]),
        ]
        for guess in guesses {
            let keys = StateStreamKeys(groupKey: Fixtures.key, secret: guess, clientHello: clientHello, serverHello: serverHello)
            var fromClient = StreamDeframer(key: keys.client)
            fromClient.append(get)
            #expect(throws: StreamFrameError.self) { try fromClient.next() }
            var fromServer = StreamDeframer(key: keys.server)
            fromServer.append(start)
            #expect(throws: StreamFrameError.self) { try fromServer.next() }
        }
        // The real keys do open them: the failures above are the missing secret's.
        var real = StreamDeframer(key: StreamFixtures.keys.server)
        real.append(start)
        #expect(try real.next() != nil)
    }
}
