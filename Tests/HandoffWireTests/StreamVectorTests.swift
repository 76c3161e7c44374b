import Foundation
import PropertyList
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
        var clientNonce: String
        var serverNonce: String
        var clientHello: String
        var serverHello: String
        var clientProof: String
        var authKey: String
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
        guard case .announce(let record) = GoldenVectorTests.messages[0].message else { preconditionFailure("the first golden message is the ANNOUNCE") }
        return DatagramCodecV2.plaintext(.announce(record), sentAt: record.savedAt)
    }

    /// Builds the vector with the machines themselves where a session produces the bytes.
    static func make() throws -> Vector {
        let state = state
        let (shelf, request) = StreamFixtures.shelf(state)
        var client = StateClientConnection(groupKey: Fixtures.key, request: request, offset: 0, nonce: StreamFixtures.clientNonce)
        var server = StateServerConnection(groupKey: Fixtures.key, shelf: shelf, nonce: StreamFixtures.serverNonce)
        let clientHello = client.start()
        guard case .write(let serverHello) = server.receive(clientHello).first,
            case .write(let proofAndGet) = client.receive(serverHello).first
        else { throw VectorError.handshakeFailed }
        let proof = Array(proofAndGet.prefix(32)), get = Array(proofAndGet.dropFirst(32))
        guard case .write(let machineStart) = server.receive(proofAndGet).first else { throw VectorError.noStart }

        let keys = StreamFixtures.keys
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

        return Vector(
            groupKey: Fixtures.key.base64, clientNonce: hex(StreamFixtures.clientNonce), serverNonce: hex(StreamFixtures.serverNonce),
            clientHello: hex(clientHello), serverHello: hex(serverHello), clientProof: hex(proof),
            authKey: hex(keys.auth), clientKey: hex(keys.client), serverKey: hex(keys.server), state: hex(state),
            request: Request(activityID: request.activityID, revision: request.revision, offset: 0, size: request.size, digest: hex(request.digest)),
            frames: frames)
    }

    enum VectorError: Error { case handshakeFailed, noStart, startDiffers }

    @Test("The fixed session gives the committed bytes, and a client reads the committed frames back")
    func vector() throws {
        let made = try Self.make()
        let committed = try committedGolden(made, file: Self.file)

        // The committed bytes, read by a client with the committed nonce and key.
        let key = try GroupKey(base64: committed.groupKey)
        let request = StateRequest(
            activityID: committed.request.activityID, revision: committed.request.revision,
            digest: Self.unhex(committed.request.digest), size: committed.request.size)
        var client = StateClientConnection(groupKey: key, request: request, offset: 0, nonce: Self.unhex(committed.clientNonce))
        #expect(Self.hex(client.start()) == committed.clientHello)
        #expect(client.receive(Self.unhex(committed.serverHello)) == [.write(Self.unhex(committed.clientProof) + Self.unhex(committed.frames[0].frame))])
        var data: [UInt8] = []
        var outputs: [StateClientConnection.Output] = []
        for frame in committed.frames.dropFirst().prefix(3) { outputs += client.receive(Self.unhex(frame.frame)) }
        for case .data(let body) in outputs { data += body }
        #expect(Self.hex(data) == committed.state)
        #expect(outputs.last == .finished)

        var refused = StateClientConnection(groupKey: key, request: request, offset: 0, nonce: Self.unhex(committed.clientNonce))
        _ = refused.start()
        _ = refused.receive(Self.unhex(committed.serverHello))
        #expect(refused.receive(Self.unhex(committed.frames[4].frame)) == [.failed(.notFound)])
    }
}
