import HandoffTesting
import Testing
@testable import Handoff
@testable import HandoffWire

/// The two sans-IO machines after the handshake: what a server answers to each GET, and what a
/// client refuses (docs/PROTOCOL.md section 10, "Frames").
@Suite("State stream machines")
struct StateStreamMachineTests {
    static let state = StreamFixtures.state(150_000)

    /// The server's answer to one GET frame: its frames (DATA pulled to the end) and its close.
    func answer(_ message: StreamMessage, shelf: StateShelf? = nil) throws -> (messages: [StreamMessage], close: StateServerConnection.CloseReason?) {
        var server = StreamFixtures.authenticatedServer(shelf ?? StreamFixtures.shelf(Self.state).0)
        var sealer = StreamFixtures.clientSealer
        var bytes: [UInt8] = []
        var close: StateServerConnection.CloseReason?
        for output in server.receive(sealer.seal(message)) {
            switch output {
            case .write(let written): bytes += written
            case .startStreaming: while let frame = server.nextDataFrame() { bytes += frame }
            case .close(let reason): close = reason
            case .openStream: Issue.record("handed over")
            }
        }
        return (try StreamFixtures.serverMessages(bytes), close)
    }

    @Test("A GET for a kept state is answered with START and the bytes from its offset")
    func servesFromOffset() throws {
        let request = StreamFixtures.shelf(Self.state).1
        let (messages, close) = try answer(.get(request, offset: 100_000))
        #expect(close == nil)
        #expect(messages.first == .start(size: 150_000, offset: 100_000))
        let bytes: [UInt8] = messages.dropFirst().flatMap { message -> [UInt8] in
            if case .data(let body) = message { Array(body) } else { [] }
        }
        #expect(bytes == Array(Self.state[100_000...]))
    }

    @Test("A state made again is checked as it is sealed: served whole when it matches, its last frame withheld when not", arguments: [0, 100_000, 149_999])
    func madeAgainCheckedAsItPasses(offset: Int) throws {
        let digest = StreamFixtures.digest(Self.state)
        var changed = Self.state
        changed[149_999] ^= 1  // in the last DATA frame from any of the offsets
        for (made, matches) in [(Self.state, true), (changed, false)] {
            let shelf = StateShelf()
            shelf.put(activityID: StreamFixtures.activityID, revision: 3, digest: digest) { made }
            var server = StreamFixtures.authenticatedServer(shelf)
            var sealer = StreamFixtures.clientSealer
            let request = StateRequest(activityID: StreamFixtures.activityID, revision: 3, digest: digest, size: 150_000)
            var bytes: [UInt8] = []
            for output in server.receive(sealer.seal(.get(request, offset: offset))) {
                switch output {
                case .write(let written): bytes += written
                case .startStreaming: while let frame = server.nextDataFrame() { bytes += frame }
                case .close(let reason): Issue.record("closed at once: \(reason)")
                case .openStream: Issue.record("handed over")
                }
            }
            let messages = try StreamFixtures.serverMessages(bytes)
            let data: [UInt8] = messages.dropFirst().flatMap { message -> [UInt8] in
                if case .data(let body) = message { Array(body) } else { [] }
            }
            #expect(messages.first == .start(size: 150_000, offset: offset))
            if matches {
                #expect(data == Array(Self.state[offset...]))
                #expect(server.closeReason == nil)
            } else {
                // Everything but the last frame went out; the bytes that differ never did.
                let lastFrameStart = offset + (150_000 - offset - 1) / StateStream.maximumDataLength * StateStream.maximumDataLength
                #expect(data == Array(changed[offset..<lastFrameStart]))
                #expect(server.closeReason == .stateMismatch)
                #expect(server.isClosed)
            }
        }
    }

    @Test("An unknown activity, revision or digest is ERROR 01, and nothing of the state is sent")
    func notFound() throws {
        let request = StreamFixtures.shelf(Self.state).1
        var otherDigest = request.digest
        otherDigest[31] ^= 1
        let gets: [StreamMessage] = [
            .get(activityID: "SOMETHING-ELSE", revision: request.revision, offset: 0, digest: request.digest),
            .get(activityID: request.activityID, revision: request.revision + 1, offset: 0, digest: request.digest),
            .get(activityID: request.activityID, revision: request.revision, offset: 0, digest: otherDigest),
        ]
        for get in gets {
            let (messages, close) = try answer(get)
            #expect(messages == [.error(.notFound, message: "no state kept for this activity, revision and digest")])
            #expect(close == .answeredError(.notFound))
        }
    }

    @Test("An offset beyond the size is ERROR 02; the size itself is a START with no DATA")
    func offsets() throws {
        let request = StreamFixtures.shelf(Self.state).1
        let beyond = try answer(.get(request, offset: 150_001))
        #expect(beyond.messages == [.error(.badRequest, message: "offset 150001 is beyond the size 150000")])
        #expect(beyond.close == .answeredError(.badRequest))
        let atEnd = try answer(.get(request, offset: 150_000))
        #expect(atEnd.messages == [.start(size: 150_000, offset: 150_000)])
        #expect(atEnd.close == nil)
    }

    @Test("A first frame that is not a GET, or a malformed GET, is ERROR 02")
    func badRequests() throws {
        for message in [StreamMessage.start(size: 1, offset: 0), .data([1][...]), .error(.notFound, message: "")] {
            let (messages, close) = try answer(message)
            #expect(messages == [.error(.badRequest, message: "the first frame must be a GET")])
            #expect(close == .answeredError(.badRequest))
        }
        var server = StreamFixtures.authenticatedServer(StreamFixtures.shelf(Self.state).0)
        var sealer = StreamFixtures.clientSealer
        let outputs = server.receive(sealer.seal([1, 2, 3]))
        #expect(outputs.last == .close(.answeredError(.badRequest)))
    }

    @Test("A second frame from the client is ERROR 02 and ends the stream")
    func secondFrame() throws {
        let request = StreamFixtures.shelf(Self.state).1
        var server = StreamFixtures.authenticatedServer(StreamFixtures.shelf(Self.state).0)
        var sealer = StreamFixtures.clientSealer
        #expect(server.receive(sealer.seal(.get(request, offset: 0))).last == .startStreaming)
        #expect(server.nextDataFrame() != nil)
        let outputs = server.receive(sealer.seal(.get(request, offset: 0)))
        #expect(outputs.last == .close(.answeredError(.badRequest)))
        #expect(server.nextDataFrame() == nil, "no DATA after the ERROR")
    }

    @Test("A client frame with a bad length, or one that does not open, closes the server without an answer")
    func badClientFrames() {
        var server = StreamFixtures.authenticatedServer(StreamFixtures.shelf(Self.state).0)
        #expect(server.receive([0, 1, 0, 17]) == [.close(.badFrame(.badLength(65_553)))])
        var other = StreamFixtures.authenticatedServer(StreamFixtures.shelf(Self.state).0)
        var wrong = StreamFixtures.serverSealer  // the other direction's key
        #expect(other.receive(wrong.seal([1])) == [.close(.badFrame(.doesNotOpen(counter: 0)))])
    }

    @Test("A client that closes before its GET is noted; after START, its close needs no answer")
    func clientEnds() {
        var early = StreamFixtures.authenticatedServer(StreamFixtures.shelf(Self.state).0)
        #expect(early.receiveEnd() == [.close(.clientClosed)])
        #expect(early.isClosed)
    }

    // MARK: - The client's refusals

    func client(_ frames: [StreamMessage], offset: Int = 0) -> [StateClientConnection.Output] {
        let request = StreamFixtures.shelf(Self.state).1
        var client = StreamFixtures.handshakenClient(request, offset: offset)
        var sealer = StreamFixtures.serverSealer
        return client.receive(frames.flatMap { sealer.seal($0) })
    }

    @Test("The client refuses a START that differs from its request, DATA before START or beyond the size, and unknown types")
    func clientRefusals() {
        #expect(client([.start(size: 150_001, offset: 0)]) == [.failed(.badResponse("START for 150001 bytes from 0, asked 150000 from 0"))])
        #expect(client([.start(size: 150_000, offset: 0)], offset: 5) == [.failed(.badResponse("START for 150000 bytes from 0, asked 150000 from 5"))])
        #expect(client([.data([1][...])]) == [.failed(.badResponse("DATA before START"))])
        #expect(client([.start(size: 150_000, offset: 0), .start(size: 150_000, offset: 0)]) == [.failed(.badResponse("a second START"))])
        let nearEnd = client([.start(size: 150_000, offset: 149_999), .data([1, 2][...])], offset: 149_999)
        #expect(nearEnd == [.failed(.badResponse("DATA beyond the size of 150000 bytes"))])
        var sealer = StreamFixtures.serverSealer
        let request = StreamFixtures.shelf(Self.state).1
        var unknown = StreamFixtures.handshakenClient(request)
        #expect(unknown.receive(sealer.seal([9, 9])) == [.failed(.badResponse("a frame of unknown type 9"))])
    }

    @Test("ERROR 01 is notFound, any other code a refusal with its message")
    func clientErrors() {
        #expect(client([.error(.notFound, message: "gone")]) == [.failed(.notFound)])
        #expect(client([.error(.badRequest, message: "offset")]) == [.failed(.refused(code: 2, message: "offset"))])
        #expect(client([.error(StreamErrorCode(rawValue: 7), message: "")]) == [.failed(.refused(code: 7, message: ""))])
    }

    @Test("A server frame that does not open is a lost connection (resumable), not a result")
    func clientCorruptFrame() {
        let request = StreamFixtures.shelf(Self.state).1
        var client = StreamFixtures.handshakenClient(request)
        var sealer = StreamFixtures.serverSealer
        var frame = sealer.seal(.start(size: 150_000, offset: 0))
        frame[10] ^= 0x01
        #expect(client.receive(frame) == [.failed(.connectionLost("frame 0 did not open (wrong key, or bytes changed on the way)"))])
    }

    @Test("Cut at every offset, a session hands on only whole verified frames and finishes only at its last byte")
    func truncationAtEveryOffset() {
        let state = StreamFixtures.state(140_000)
        let whole = StreamFixtures.session(state)
        let (_, request) = StreamFixtures.shelf(state)
        var client = StreamFixtures.clientMachine(request)
        _ = client.start()
        var data: [UInt8] = []
        var finishedAt: Int?
        var frameEnds: [Int] = []
        for (index, byte) in whole.serverBytes.enumerated() {
            for output in client.receive(CollectionOfOne(byte)) {
                switch output {
                case .data(let body):
                    data += body
                    frameEnds.append(index + 1)
                    // Whatever the cut, what was handed on is a prefix of the state.
                    #expect(data == Array(state.prefix(data.count)))
                case .finished: finishedAt = index + 1
                case .write: break
                case .failed(let failure): Issue.record("failed at \(index): \(failure)")
                }
            }
        }
        #expect(data == state)
        #expect(finishedAt == whole.serverBytes.count)
        #expect(frameEnds.count == 3, "data only when a whole DATA frame is in")
    }
}
