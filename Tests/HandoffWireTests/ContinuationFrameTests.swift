import HandoffTesting
import Testing
@testable import HandoffWire

@Suite("Continuation frames")
struct ContinuationFrameTests {
    static let frames: [ContinuationFrame] = [
        .open(activityID: StreamFixtures.activityID), .accept, .message(more: true, [1, 2, 3]), .message(more: false, []),
        .message(more: false, ArraySlice(repeating: 7, count: ContinuationStreamLimits.maximumChunk)), .credit(1),
        .credit(ContinuationStreamLimits.window), .keepAlive, .close, .error(.notSupported, message: "no streams here"),
    ]

    @Test("Every frame reads back as itself")
    func roundTrip() throws {
        for frame in Self.frames {
            #expect(try ContinuationFrame(plaintext: frame.plaintext[...]) == frame)
        }
        #expect(ContinuationFrame.credit(262_144).plaintext == [8, 0, 4, 0, 0])
        #expect(ContinuationFrame.message(more: true, [9]).plaintext == [7, 1, 9])
    }

    @Test("Every malformed plaintext is an error", arguments: [
        [], [5], [5] + [UInt8](repeating: 0x41, count: 256), [5, 0xFF, 0xFE], [6, 0], [9, 1], [10, 0, 0], [7], [7, 2, 1],
        [7, 0x80], [8], [8, 0, 0, 0], [8, 0, 0, 0, 0], [8, 0, 0x10, 0, 1], [8, 0xFF, 0xFF, 0xFF, 0xFF], [8, 0, 0, 1, 0, 0],
        [4], [1, 0], [2], [3, 1], [0x0B], [0xFF],
    ] as [[UInt8]])
    func malformed(_ plaintext: [UInt8]) {
        #expect(throws: ContinuationFrame.DecodeError.self) { try ContinuationFrame(plaintext: plaintext[...]) }
    }

    @Test("A MESSAGE longer than a frame holds is refused")
    func oversizedMessage() {
        let plaintext: [UInt8] = [7, 0] + [UInt8](repeating: 1, count: ContinuationStreamLimits.maximumChunk + 1)
        #expect(throws: ContinuationFrame.DecodeError.malformed(type: 7, reason: "a MESSAGE frame carries at most 65,534 bytes")) {
            try ContinuationFrame(plaintext: plaintext[...])
        }
    }

    @Test("Random bytes never crash the reader")
    func hostile() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int(state >> 58)
            var bytes: [UInt8] = []
            for index in 0..<count { bytes.append(UInt8(truncatingIfNeeded: state >> UInt64((index % 7) * 8))) }
            if let first = bytes.first { bytes[0] = 4 + first % 8 }
            _ = try? ContinuationFrame(plaintext: bytes[...])
        }
        #expect(Bool(true))
    }

    @Test("An OPEN after the handshake hands the connection over, with the client proven; a GET is served as before")
    func serverHandsOver() throws {
        let (shelf, _) = StreamFixtures.shelf([1, 2, 3])
        var server = StreamFixtures.serverMachine(shelf)
        var client = ContinuationClientHandshake(
            identity: StreamFixtures.client, groupKey: Fixtures.key, source: StreamFixtures.server.asSource,
            open: ContinuationFrame.open(activityID: StreamFixtures.activityID).plaintext, ephemeralKey: StreamFixtures.clientEphemeral)
        guard case .write(let serverHello) = server.receive(client.start()).first else { Issue.record("no ServerHello"); return }
        let outputs = client.receive(serverHello)
        guard case .write(let proofAndOpen) = outputs.first, case .established(var clientLink) = outputs.last else {
            Issue.record("the handshake did not finish: \(outputs)"); return
        }
        #expect(clientLink.peerSenderID == StreamFixtures.server.senderID)
        let handed = server.receive(proofAndOpen)
        guard case .openStream(var opening) = handed.first, handed.count == 1 else { Issue.record("not handed over: \(handed)"); return }
        #expect(opening.activityID == StreamFixtures.activityID)
        #expect(opening.link.peerSenderID == StreamFixtures.client.senderID)
        #expect(opening.link.peerDevice == StreamFixtures.client.device.publicIdentity)
        #expect(server.isHandedOver && server.receive([1, 2, 3]).isEmpty)
        // The two links carry frames on with the handshake's keys and counters.
        clientLink.deframer.append(opening.link.sealer.seal(ContinuationFrame.accept.plaintext))
        #expect(try clientLink.deframer.next() == [ContinuationFrame.acceptType])
        opening.link.deframer.append(clientLink.sealer.seal(ContinuationFrame.keepAlive.plaintext))
        #expect(try opening.link.deframer.next() == [ContinuationFrame.keepAliveType])
    }

    @Test("A malformed OPEN is answered with ERROR 02 and closed")
    func malformedOpen() throws {
        let (shelf, _) = StreamFixtures.shelf([1, 2, 3])
        var server = StreamFixtures.serverMachine(shelf)
        var client = ContinuationClientHandshake(
            identity: StreamFixtures.client, groupKey: Fixtures.key, source: StreamFixtures.server.asSource,
            open: [ContinuationFrame.openType, 0xFF], ephemeralKey: StreamFixtures.clientEphemeral)
        guard case .write(let serverHello) = server.receive(client.start()).first,
            case .write(let proofAndOpen) = client.receive(serverHello).first
        else { Issue.record("no handshake"); return }
        let outputs = server.receive(proofAndOpen)
        #expect(outputs.last == .close(.answeredError(.badRequest)))
    }

    @Test("A client handshake refuses a ServerHello from another sender")
    func wrongServer() {
        let (shelf, _) = StreamFixtures.shelf([1, 2, 3])
        var server = StreamFixtures.serverMachine(shelf)
        let other = StreamIdentity(device: StreamFixtures.server.device, instance: [1, 1, 1, 1, 1, 1, 1, 1])
        var client = ContinuationClientHandshake(
            identity: StreamFixtures.client, groupKey: Fixtures.key, source: other.asSource,
            open: ContinuationFrame.open(activityID: "x").plaintext)
        guard case .write(let serverHello) = server.receive(client.start()).first else { Issue.record("no ServerHello"); return }
        guard case .failed(let failure) = client.receive(serverHello).first else { Issue.record("accepted"); return }
        #expect(failure == .authenticationFailed)
    }
}
