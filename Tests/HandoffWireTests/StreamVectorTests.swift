import Crypto
import Foundation
import PropertyList
import HandoffTesting
import Testing
@testable import HandoffWire

/// Fixed inputs → exact bytes for one state-stream session (`Vectors/golden/stream.json`),
/// the contract `scripts/check-vectors.py` checks independently. `BATON_WRITE_VECTORS=1 swift
/// test --filter StreamVector` rewrites the file (only when the protocol deliberately changes).
@Suite("Stream golden vectors")
struct StreamVectorTests {
    struct Request: Codable, Equatable {
        var activityID: String
        var revision: Int
        var offset: Int
        var size: Int
        var digest: String
    }

    struct Frame: Codable, Equatable {
        var name: String
        var direction: String
        var counter: UInt64
        var plaintext: String
        var frame: String
    }

    struct Vector: Codable, Equatable {
        var groupKey: String
        var keyID: String
        var clientSeed: String
        var serverSeed: String
        var clientPublicIdentity: String
        var serverPublicIdentity: String
        var clientSenderID: String
        var serverSenderID: String
        var clientEphemeralPrivateKey: String
        var serverEphemeralPrivateKey: String
        var clientEphemeralPublicKey: String
        var serverEphemeralPublicKey: String
        var clientHello: String
        var serverHello: String
        var clientProof: String
        var sharedSecret: String
        var salt: String
        var clientKey: String
        var serverKey: String
        var state: String
        var request: Request
        var frames: [Frame]
    }

    static let file = GoldenVectorTests.folder.appendingPathComponent("stream.json")
    static let hex = GoldenVectorTests.hex
    static let unhex = GoldenVectorTests.unhex

    /// The state: the golden ANNOUNCE's record as a state encoding (its payload with `sentAt = savedAt`).
    static var state: [UInt8] {
        let record = GoldenVectorTests.record3
        return DatagramCodecV2.plaintext(.announce(record), sentAt: record.savedAt)
    }

    /// Builds the vector with the machines themselves where a session produces the bytes.
    static func make() throws -> Vector {
        let state = state
        let (shelf, request) = StreamFixtures.shelf(state)
        var client = StreamFixtures.clientMachine(request)
        var server = StreamFixtures.serverMachine(shelf)
        let clientHello = client.start()
        guard case .write(let serverHello) = server.receive(clientHello).first,
            case .write(let proofAndGet) = client.receive(serverHello).first
        else { throw VectorError.handshakeFailed }
        let proof = Array(proofAndGet.prefix(StateStream.proofLength)), get = Array(proofAndGet.dropFirst(StateStream.proofLength))
        guard case .write(let machineStart) = server.receive(proofAndGet).first else { throw VectorError.noStart }

        let clientPublic = StateStreamHandshake.publicKey(ofEphemeral: StreamFixtures.clientEphemeral)
        let serverPublic = StateStreamHandshake.publicKey(ofEphemeral: StreamFixtures.serverEphemeral)
        guard let secret = StateStreamHandshake.sharedSecret(privateKey: StreamFixtures.clientEphemeral, publicKey: serverPublic)
        else { throw VectorError.handshakeFailed }
        let keys = StateStreamKeys(groupKey: Fixtures.key, secret: secret, clientHello: clientHello, serverHello: serverHello)
        // Two DATA frames, as a server may split the state anywhere.
        let split = 300
        let serverFrames: [(String, StreamMessage)] = [
            ("START", .start(size: state.count, offset: 0)),
            ("DATA", .data(state[..<split])),
            ("DATA", .data(state[split...])),
        ]
        var sealer = StreamFrameSealer(key: keys.server)
        var frames = [Frame(name: "GET", direction: "client", counter: 0, plaintext: hex(StreamMessage.get(request, offset: 0).plaintext), frame: hex(get))]
        for (name, message) in serverFrames {
            let counter = sealer.counter
            frames.append(Frame(name: name, direction: "server", counter: counter, plaintext: hex(message.plaintext), frame: hex(sealer.seal(message))))
        }
        // What a server that keeps nothing for the GET sends instead of START.
        var errorSealer = StreamFrameSealer(key: keys.server)
        let error = StreamMessage.error(.notFound, message: "no state kept for this activity, revision and digest")
        frames.append(Frame(name: "ERROR", direction: "server", counter: 0, plaintext: hex(error.plaintext), frame: hex(errorSealer.seal(error))))
        guard frames[1].frame == hex(machineStart) else { throw VectorError.startDiffers }

        let clientDevice = StreamFixtures.client.device, serverDevice = StreamFixtures.server.device
        return Vector(
            groupKey: Fixtures.key.base64, keyID: hex(StateStreamHandshake.keyID(of: Fixtures.key)),
            clientSeed: hex(clientDevice.seed), serverSeed: hex(serverDevice.seed),
            clientPublicIdentity: hex(clientDevice.publicIdentity.bytes), serverPublicIdentity: hex(serverDevice.publicIdentity.bytes),
            clientSenderID: hex(StreamFixtures.client.senderID.bytes), serverSenderID: hex(StreamFixtures.server.senderID.bytes),
            clientEphemeralPrivateKey: hex(StreamFixtures.clientEphemeral), serverEphemeralPrivateKey: hex(StreamFixtures.serverEphemeral),
            clientEphemeralPublicKey: hex(clientPublic), serverEphemeralPublicKey: hex(serverPublic),
            clientHello: hex(clientHello), serverHello: hex(serverHello), clientProof: hex(proof),
            sharedSecret: hex(secret), salt: hex(Array(SHA256.hash(data: clientHello + serverHello))),
            clientKey: hex(keys.client), serverKey: hex(keys.server), state: hex(state),
            request: Request(activityID: request.activityID, revision: request.revision, offset: 0, size: request.size, digest: hex(request.digest)),
            frames: frames)
    }

    enum VectorError: Error { case handshakeFailed, noStart, startDiffers }

    @Test("The fixed session gives the committed bytes, and a client reads the committed frames back")
    func vector() throws {
        let made = try Self.make()
        let committed = try committedGolden(made, file: Self.file)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        #expect(try encoder.encode(made) == Data(contentsOf: Self.file), "the committed JSON, byte for byte")

        // The committed bytes, read by a client made from the committed inputs.
        let key = try GroupKey(base64: committed.groupKey)
        let request = StateRequest(
            activityID: committed.request.activityID, revision: committed.request.revision,
            digest: Self.unhex(committed.request.digest), size: committed.request.size)
        let clientDevice = try #require(DeviceIdentity(seed: Self.unhex(committed.clientSeed)))
        let serverIdentity = try #require(PublicIdentity(bytes: Self.unhex(committed.serverPublicIdentity)))
        let source = StreamSource(senderID: try #require(SenderID(bytes: Self.unhex(committed.serverSenderID))), identity: serverIdentity)
        let identity = StreamIdentity(device: clientDevice, senderID: try #require(SenderID(bytes: Self.unhex(committed.clientSenderID))))
        func committedClient() -> StateClientConnection {
            StateClientConnection(
                identity: identity, groupKey: key, source: source, request: request, offset: 0,
                ephemeralKey: Self.unhex(committed.clientEphemeralPrivateKey))
        }
        var client = committedClient()
        #expect(Self.hex(client.start()) == committed.clientHello)
        #expect(client.receive(Self.unhex(committed.serverHello)) == [.write(Self.unhex(committed.clientProof) + Self.unhex(committed.frames[0].frame))])
        var data: [UInt8] = []
        var outputs: [StateClientConnection.Output] = []
        for frame in committed.frames.dropFirst().prefix(3) { outputs += client.receive(Self.unhex(frame.frame)) }
        for case .data(let body) in outputs { data += body }
        #expect(Self.hex(data) == committed.state)
        #expect(outputs.last == .finished)

        var refused = committedClient()
        _ = refused.start()
        _ = refused.receive(Self.unhex(committed.serverHello))
        #expect(refused.receive(Self.unhex(committed.frames[4].frame)) == [.failed(.notFound)])
    }
}
