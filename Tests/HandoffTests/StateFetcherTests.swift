import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// The fetcher over in-memory streams, in virtual time: resume, timeouts, give-up, digest
/// (docs/PROTOCOL.md section 10, "Resuming" and "Limits").
@Suite("State fetcher", .timeLimit(.minutes(2)))
struct StateFetcherTests {
    static let state = StreamFixtures.state(300_000, seed: 5)

    /// A network with a source, the fixed server device, serving `state` at source:7000.
    func network(_ state: [UInt8] = Self.state) -> (FetchDriver, InMemoryStreamServer, StateRequest) {
        let streams = InMemoryStreams()
        let (shelf, request) = StreamFixtures.shelf(state)
        let server = Self.serve(streams, shelf)
        return (FetchDriver(streams: streams), server, request)
    }

    /// Serves `shelf` at source:7000 as the fixed server device, to the fixed client device.
    @discardableResult
    static func serve(_ streams: InMemoryStreams, _ shelf: StateShelf) -> InMemoryStreamServer {
        streams.serve(host: "source", port: 7000, identity: StreamFixtures.server, trust: StreamFixtures.trust(), shelf: shelf)
    }

    @Test("A whole state arrives byte-exact on one connection, with progress after every frame")
    func wholeState() async {
        let (driver, server, request) = network(StreamFixtures.state(1 << 20))
        let outcome = await driver.run(request)
        #expect(outcome.state == StreamFixtures.state(1 << 20))
        #expect(outcome.waits.isEmpty)
        #expect(server.connectionCount == 1)
        #expect(outcome.progress.count == 17)
        #expect(outcome.progress.last?.received == 1 << 20 && outcome.progress.allSatisfy { $0.resumes == 0 })
        #expect(zip(outcome.progress, outcome.progress.dropFirst()).allSatisfy { $0.received < $1.received })
    }

    @Test("Cut at any of many offsets, the fetch resumes from the bytes it holds and ends byte-exact")
    func resumeAfterCuts() async {
        // The handshake, START, both sides of every frame boundary, and points inside frames.
        var cuts = [0, 1, 39, 71, 72, 73, 108, 109, 110, 65_000]
        // ServerHello 72 bytes, START 37, then DATA frames of 4 + 65,536 + 16 bytes.
        for frame in 1...4 { cuts += [109 + frame * 65_556 - 1, 109 + frame * 65_556, 109 + frame * 65_556 + 1] }
        for cut in cuts {
            let (driver, server, request) = network()
            server.setFaults { $0 == 1 ? StreamFaults(cutAfter: cut, readSize: 7_000) : .none }
            let outcome = await driver.run(request)
            #expect(outcome.state == Self.state, "cut at \(cut): \(String(describing: outcome.failure))")
            #expect(server.connectionCount == 2, "cut at \(cut)")
            #expect(outcome.waits.isEmpty, "the first reconnect is at once")
            #expect(outcome.progress.last.map { $0.resumes } == 1)
        }
    }

    @Test("Connections cut every 140,000 bytes still bring the whole state, one resume per cut")
    func manyCuts() async {
        let (driver, server, request) = network()
        server.setFaults(StreamFaults(cutAfter: 140_000))
        let outcome = await driver.run(request)
        #expect(outcome.state == Self.state)
        // Two DATA frames per connection: 131,070 bytes, then 262,140, then the rest.
        #expect(server.connectionCount == 3)
        #expect(outcome.progress.map(\.resumes) == [0, 0, 1, 1, 2])
    }

    @Test("A flipped byte never yields wrong bytes: the fetch resumes past it, or fails")
    func flippedBytes() async {
        for offset in [0, 5, 8, 40, 71, 119, 120, 200, 70_000, 299_000] {
            let (driver, server, request) = network()
            server.setFaults { $0 == 1 ? StreamFaults(flipAt: offset) : .none }
            let outcome = await driver.run(request)
            switch outcome.result {
            case .success(let bytes):
                #expect(bytes == Self.state, "flip at \(offset)")
                #expect(offset >= 120, "a changed ServerHello must fail the handshake")
                #expect(server.connectionCount == 2, "flip at \(offset): the damaged connection was dropped")
            case .failure(let failure):
                // Only the handshake's bytes are not frames: a changed ServerHello fails it.
                #expect(offset < 120, "flip at \(offset): \(failure)")
                #expect(failure == (offset < 8 ? .badResponse("the ServerHello is not BTNS version 03") : .authenticationFailed))
            }
        }
    }

    @Test("State that does not match its digest is thrown away")
    func digestMismatch() async {
        let streams = InMemoryStreams()
        let shelf = StateShelf()
        var digest = StreamFixtures.digest(Self.state)
        digest[0] ^= 1
        shelf.put(activityID: "A", revision: 1, digest: digest, bytes: Self.state)
        Self.serve(streams, shelf)
        let outcome = await FetchDriver(streams: streams).run(StateRequest(activityID: "A", revision: 1, digest: digest, size: Self.state.count))
        #expect(outcome.failure == .digestMismatch)
        #expect(outcome.progress.last?.received == Self.state.count, "it all arrived, and was still refused")
    }

    @Test("Not found, another sender, another device's signature and an invalid request end the fetch on the first connection")
    func finalFailures() async {
        let (driver, server, request) = network()
        var unknown = request
        unknown.revision = 99
        #expect(await driver.run(unknown).failure == .notFound)
        #expect(server.connectionCount == 1)
        #expect(server.closeReasons == [.answeredError(.notFound)])

        // The OFFER came from another process of the same device: the server's sender id differs.
        let otherSender = StreamSource(
            senderID: StreamIdentity(device: StreamFixtures.server.device, instance: Array(repeating: 9, count: 8)).senderID,
            identity: StreamFixtures.server.device.publicIdentity)
        let wrongSender = await driver.run(request, source: otherSender)
        #expect(wrongSender.failure == .authenticationFailed)
        #expect(wrongSender.progress.isEmpty)
        #expect(server.connectionCount == 2)

        // The right sender id, but the list holds another key for that device: the signature fails.
        let otherKeyOfDevice = StreamSource(
            senderID: StreamFixtures.server.senderID, identity: StreamFixtures.client.device.publicIdentity)
        #expect(await driver.run(request, source: otherKeyOfDevice).failure == .authenticationFailed)
        #expect(server.connectionCount == 3)

        var invalid = request
        invalid.digest = [1, 2, 3]
        #expect(await driver.run(invalid).failure == .invalidRequest("the digest is 3 bytes; SHA-256 gives 32"))
        #expect(server.connectionCount == 3, "nothing was dialled")

        var huge = request
        huge.size = Int.max
        #expect(await driver.run(huge).failure == .invalidRequest("the state is \(HandoffError.size(Int.max)), over the \(HandoffError.size(ActivityCenter.Configuration.defaultStateLimit)) this side fetches"))
        #expect(server.connectionCount == 3, "nothing was dialled, nothing reserved")
    }

    @Test("A group key the source does not hold is closed without a word: the client sees drops and gives up")
    func unknownGroupKey() async {
        let (driver, server, request) = network()
        let outcome = await driver.run(request, key: Fixtures.otherKey)
        guard case .gaveUp(6, 0, _, _) = outcome.failure else {
            Issue.record("expected to give up after 6 connections, got \(String(describing: outcome.failure))")
            return
        }
        #expect(server.closeReasons == Array(repeating: .unknownKeyID, count: 6))
    }

    @Test("Refused connections are retried at once, then after 100, 200, 400 and 800 ms, then given up")
    func giveUpWhenRefused() async {
        let (driver, server, request) = network()
        server.setFaults(StreamFaults(refuse: true))
        let outcome = await driver.run(request)
        #expect(outcome.failure == .gaveUp(connections: 6, received: 0, size: 300_000, lastReason: "connection to source:7000 refused"))
        #expect(outcome.waits == [0.1, 0.2, 0.4, 0.8])
        #expect(server.connectionCount == 6)
    }

    @Test("A source that never answers the connect is given up after six 2 s connects and the backoffs")
    func connectTimeouts() async {
        let (driver, server, request) = network()
        server.setFaults(StreamFaults(hangConnect: true))
        let outcome = await driver.run(request)
        #expect(outcome.failure == .gaveUp(connections: 6, received: 0, size: 300_000, lastReason: "no connection to source:7000 within 2 s"))
        #expect(outcome.waits == [2, 2, 0.1, 2, 0.2, 2, 0.4, 2, 0.8, 2])
    }

    @Test("No ServerHello within 2 s, or no START: the fetch connects again")
    func replyTimeouts() async {
        for stall in [0, 72] {
            let (driver, server, request) = network()
            server.setFaults { $0 == 1 ? StreamFaults(stallAfter: stall) : .none }
            let outcome = await driver.run(request)
            #expect(outcome.state == Self.state, "stall at \(stall)")
            #expect(outcome.waits == [2], "stall at \(stall)")
        }
    }

    @Test("No data for 3 s mid-transfer: the fetch resumes on a new connection from where it was")
    func idleTimeout() async {
        let (driver, server, request) = network()
        server.setFaults { $0 == 1 ? StreamFaults(stallAfter: 150_000) : .none }
        let outcome = await driver.run(request)
        #expect(outcome.state == Self.state)
        #expect(outcome.waits == [3])
        #expect(server.connectionCount == 2)
        let beforeResume = outcome.progress.filter { $0.resumes == 0 }.last?.received ?? 0
        #expect(beforeResume > 100_000 && beforeResume < 150_000)
    }

    @Test("After a connection with progress, six more without any are given up, with what was held")
    func giveUpAfterProgress() async {
        let (driver, server, request) = network()
        server.setFaults { $0 == 1 ? StreamFaults(stallAfter: 150_000) : StreamFaults(stallAfter: 72) }
        let outcome = await driver.run(request)
        guard case .gaveUp(let connections, let received, _, let reason) = outcome.failure else {
            Issue.record("expected to give up: \(outcome.result)")
            return
        }
        #expect(connections == 6 && received > 100_000 && reason == "no reply within 2 s")
        #expect(server.connectionCount == 7)
        #expect(outcome.waits == [3, 2, 2, 0.1, 2, 0.2, 2, 0.4, 2, 0.8, 2])
    }

    @Test("Cancelling a stuck fetch ends it with .cancelled without moving time")
    func cancellation() async {
        let (driver, server, request) = network()
        server.setFaults(StreamFaults(stallAfter: 100_000))
        let fetcher = driver.fetcher()
        let task = Task { () -> StreamFailure? in
            do throws(StreamFailure) {
                _ = try await fetcher.fetch(from: "source", port: 7000, source: StreamFixtures.server.asSource, request: request)
                return nil
            } catch {
                return error
            }
        }
        #expect(await FetchDriver.waitUntil { driver.streams.parkedCount == 1 })
        task.cancel()
        #expect(await task.value == .cancelled)
        #expect(driver.clock.elapsed == .zero, "the cancelled fetch waited out its timeout")
        #expect(await FetchDriver.waitUntil { server.openCount == 0 }, "the connection was closed")
    }

    @Test("A fetch in flight survives one new save of the activity, not two")
    func newRevisionsMidFetch() async {
        let streams = InMemoryStreams()
        let (shelf, request) = StreamFixtures.shelf(Self.state)
        Self.serve(streams, shelf).setFaults { connection in
            // The source saves again before the second connection, and again before the fourth.
            if connection == 2 { shelf.put(activityID: request.activityID, revision: 4, digest: [4], bytes: [4]) }
            if connection == 4 { shelf.put(activityID: request.activityID, revision: 5, digest: [5], bytes: [5]) }
            return StreamFaults(cutAfter: 100_000)
        }
        let outcome = await FetchDriver(streams: streams).run(request)
        #expect(outcome.failure == .notFound, "revision 3 went when revision 5 came")
        // One DATA frame per connection: revision 3 was still served on connections 2 and 3.
        #expect(outcome.progress.map(\.received) == [65_535, 131_070, 196_605])
    }
}
