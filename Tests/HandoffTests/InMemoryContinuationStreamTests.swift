import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// Continuation streams between two centers over the in-memory network and streams: the
/// in-memory server hands an OPEN to its shelf's door as the TCP server does.
@MainActor
@Suite("Continuation streams in memory")
struct InMemoryContinuationStreamTests {
    /// Alice's center serving on the in-memory streams, Bob's dialling them; Alice publishes an
    /// activity that takes streams, and Bob lists it.
    ///
    /// Both run in virtual time that stands still unless a test moves it: the whole suite shares
    /// two cores, and a stream's 5 s for an answer or 15 s of silence could pass in real time
    /// while its tasks wait for a thread, ending a stream the test did not end.
    static func setUp(
        _ network: InMemoryNetwork, _ streams: InMemoryStreams, taker: StreamTaker,
        alicesClock: any HandoffClock = ManualClock(start: Date()), bobsClock: any HandoffClock = ManualClock(start: Date())
    ) async throws
        -> (a: ActivityCenter, b: ActivityCenter, server: InMemoryStreamServer, activity: UserActivity, entry: NearbyActivity)
    {
        let shelf = StateShelf()
        let centerA = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key, name: "the lab's device"),
            transport: network.makeTransport(name: "alice@a.test"),
            configuration: ActivityCenter.Configuration(peer: PeerInfo(name: "alice@a", host: "a.test", app: "baton-tests", appVersion: "0")),
            clock: alicesClock, stateStream: StateStreamSetup(shelf: shelf, port: 40_001, dialer: streams))
        centerA.start()
        let server = streams.serve(
            host: "alice@a.test", port: 40_001, identity: centerA.membership.streamIdentity(senderID: centerA.senderID),
            trust: centerA.membership.streamTrust, shelf: shelf)
        let b = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key),
            transport: network.makeTransport(name: "bob@b.test"),
            configuration: ActivityCenter.Configuration(peer: PeerInfo(name: "bob@b", host: "b.test", app: "baton-tests", appVersion: "0")),
            clock: bobsClock, stateStream: StateStreamSetup(shelf: StateShelf(), port: 40_002, dialer: streams))
        b.start()

        let activity = UserActivity(activityType: "dev.baton.editing", center: centerA)
        activity.userInfo = ["text": "hi", "cursorLine": 0, "cursorColumn": 0, "fileName": "hi.txt"]
        activity.supportsContinuationStreams = true
        activity.delegate = taker
        try activity.becomeCurrent()
        let id = activity.activityID
        #expect(await waitUntil { b.nearby.contains { $0.id == id && $0.record.continuationPort == 40_001 } })
        let entry = try #require(b.nearby.first { $0.id == id })
        return (centerA, b, server, activity, entry)
    }

    @Test("Opened over the in-memory streams: messages both ways, whole and in order; a close ends the other's messages")
    func openSendClose() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let taker = StreamTaker()
        let (a, b, _, _, entry) = try await Self.setUp(network, streams, taker: taker)

        let opened = try await b.openContinuationStream(to: entry)
        #expect(await waitUntil { taker.streams.count == 1 })
        let accepted = try #require(taker.streams.first)
        #expect(accepted.peer.name == "the lab's device", "the name on the source's list")
        let atA = MessageReader(accepted)
        let atB = MessageReader(opened)
        let toA: [[UInt8]] = [[1, 2, 3], [], Array(repeating: 0x5A, count: 200_000)]
        for message in toA { try await opened.send(message) }
        try await accepted.send(Array("back".utf8))
        #expect(await waitUntil { atA.messages.count == 3 && atB.messages.count == 1 })
        #expect(atA.messages == toA)
        #expect(atB.messages == [Array("back".utf8)])

        await accepted.close()
        #expect(await waitUntil { atA.end != nil && atB.end != nil })
        #expect(atA.end == "closed" && atB.end == "closed")
        await a.shutdown()
        await b.shutdown()
    }

    @Test("A dropped connection ends both ends as lost; a server without a door refuses as a program without streams")
    func dropAndNoDoor() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let taker = StreamTaker()
        let (a, b, server, _, entry) = try await Self.setUp(network, streams, taker: taker)

        let opened = try await b.openContinuationStream(to: entry)
        #expect(await waitUntil { taker.streams.count == 1 })
        let accepted = try #require(taker.streams.first)
        let atA = MessageReader(accepted)
        let atB = MessageReader(opened)
        server.dropConnections()
        #expect(await waitUntil { atA.end != nil && atB.end != nil })
        #expect(atA.end?.contains("lost") == true, "\(atA.end ?? "")")
        #expect(atB.end?.contains("lost") == true, "\(atB.end ?? "")")

        // The same address served from a shelf nobody opened a door on.
        streams.serve(
            host: "alice@a.test", port: 40_001, identity: a.membership.streamIdentity(senderID: a.senderID),
            trust: a.membership.streamTrust, shelf: StateShelf())
        await #expect(throws: HandoffError.continuationStream(peer: "alice@a", .notSupported)) {
            try await b.openContinuationStream(to: entry)
        }
        #expect(taker.streams.count == 1)
        await a.shutdown()
        await b.shutdown()
    }
    @Test("A connection that ends after the ServerHello, before the answer to OPEN, is opened again; a refusal is not")
    func openedAgainBeforeTheAnswer() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let taker = StreamTaker()
        // Bob's opening runs in virtual time: the 5 s within which an ended connection is opened
        // again, and the pauses before it, pass only as the test moves the clock (a loaded machine
        // once took longer than 5 s of real time over the first connection).
        let clock = ManualClock(start: Date())
        let (a, b, server, activity, entry) = try await Self.setUp(network, streams, taker: taker, bobsClock: clock)
        // The first connection's ACCEPT never arrives: it ends right after the 120-byte ServerHello.
        server.setFaults { $0 == 1 ? StreamFaults(cutAfter: 120) : .none }
        let before = server.connectionCount
        let opening = Task { @MainActor in try await b.openContinuationStream(to: entry) }
        // The pause before the next connection (100 ms) is let pass only once the first has ended,
        // so the first's lifetime is no time at all in Bob's clock, however slow the machine.
        #expect(await waitUntil {
            if server.connectionCount == before + 1, server.openCount == 0 { clock.advance(by: .milliseconds(100)) }
            return server.connectionCount >= before + 2
        })
        let opened = try await opening.value
        #expect(server.connectionCount == before + 2)
        try await opened.send([42])
        #expect(await waitUntil { taker.streams.count == 2 })
        let atA = MessageReader(try #require(taker.streams.last))
        #expect(await waitUntil { atA.messages == [[42]] })
        await opened.close()

        // Not held: refused once, not opened again.
        activity.invalidate()
        let refusedAt = server.connectionCount
        await #expect(throws: HandoffError.continuationStream(peer: "alice@a", .notHeld)) { try await b.openContinuationStream(to: entry) }
        #expect(server.connectionCount == refusedAt + 1)
        await a.shutdown()
        await b.shutdown()
    }
}
