import BatonApp
import BatonResources
import Handoff
import HandoffTesting
import HandoffWire
import Logging
import PropertyList
import Synchronization
import Testing
@testable import BatonRuntime

/// A live link's messages as the Program's inbox gets them: read where they arrive, a large one
/// off that thread, and every one in the order sent; a later Baton's kind skipped, an unreadable
/// message ending the link, the other end's close ending it once.
@MainActor
@Suite("A live link's messages, read as they arrive")
struct LiveReadingTests {
    /// Two centers on the in-memory network, Alice's activity taking streams, and a stream Bob
    /// opened to it: Bob's end and Alice's.
    static func streams() async throws -> (a: ActivityCenter, b: ActivityCenter, bobs: ContinuationStream, alices: ContinuationStream) {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        func center(_ name: String, port: Int) -> ActivityCenter {
            let shelf = StateShelf()
            let center = ActivityCenter(
                registry: TestPeer.registry, membership: .sharedDevice(of: TestPeer.key, name: name),
                transport: network.makeTransport(name: "\(name).test"),
                configuration: ActivityCenter.Configuration(peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0")),
                stateStream: StateStreamSetup(shelf: shelf, port: port, dialer: streams))
            center.start()
            _ = streams.serve(
                host: "\(name).test", port: port, identity: center.membership.streamIdentity(senderID: center.senderID),
                trust: center.membership.streamTrust, shelf: shelf)
            return center
        }
        let a = center("alice", port: 42_001)
        let b = center("bob", port: 42_002)
        let taker = StreamTaker()
        let activity = UserActivity(activityType: "dev.baton.editing", center: a)
        activity.userInfo = ["text": "hi", "cursorLine": 0, "cursorColumn": 0, "fileName": "hi.txt"]
        activity.supportsContinuationStreams = true
        activity.delegate = taker
        try activity.becomeCurrent()
        let id = activity.activityID
        #expect(await waitUntil { b.nearby.contains { $0.id == id } })
        let entry = try #require(b.nearby.first { $0.id == id })
        let bobs = try await b.openContinuationStream(to: entry)
        #expect(await waitUntil { taker.streams.count == 1 })
        return (a, b, bobs, try #require(taker.streams.first))
    }

    /// What the inbox got, in order.
    final class Posted: Sendable {
        let messages = Mutex<[AppMessage]>([])
        var all: [AppMessage] { messages.withLock { $0 } }
    }

    static func reading(_ stream: ContinuationStream) -> (LiveReading, Posted, Inbox) {
        let inbox = Inbox()
        let posted = Posted()
        Task { while let message = await inbox.next() { posted.messages.withLock { $0.append(message) } } }
        let reading = LiveReading(
            link: 3, stream: stream, inbox: inbox, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        return (reading, posted, inbox)
    }

    static func change(_ revision: Int) -> LiveMessage {
        .change(revision: revision, base: revision - 1, start: 0, removed: 1, lines: ["line \(revision)"], lineCount: 1, cursor: TextPosition(line: 0, column: 0))
    }

    /// A message as a few words, for a failure's message (a state is 200 KB).
    static func summary(_ message: AppMessage) -> String {
        switch message {
        case .liveReceived(_, .change(let revision, _, _, _, _, _, _)): "change \(revision)"
        case .liveReceived(_, let live): live.kindName
        case .liveEnded(_, let problem): "ended \(problem ?? "")"
        default: "other"
        }
    }

    @Test("Changes around a 200 KB state reach the inbox in the order sent; a later Baton's kind is skipped; the close ends the link once")
    func inOrder() async throws {
        let (a, b, bobs, alices) = try await Self.streams()
        let (reading, posted, inbox) = Self.reading(alices)
        let state = LiveMessage.state(
            revision: 2, activityType: "dev.baton.editing",
            userInfo: ["text": .string(String(repeating: "a line of text\n", count: 14_000)), "cursorLine": 0, "cursorColumn": 0])
        #expect(state.bytes.count >= LiveReading.largeMessage, "the state is read off the event loop")
        let unknown = BinaryPropertyListWriter().write(.dictionary(["kind": "from a later Baton"]))
        let sent: [LiveMessage] = [Self.change(1), state] + (3...40).map(Self.change)
        try await bobs.send(sent[0].bytes)
        reading.start()
        for message in sent.dropFirst() { try await bobs.send(message.bytes) }
        try await bobs.send(unknown)
        try await bobs.send(Self.change(41).bytes)
        await bobs.close()
        let expected = (sent + [Self.change(41)]).map { AppMessage.liveReceived(link: 3, $0) } + [.liveEnded(link: 3, problem: nil)]
        #expect(await waitUntil { posted.all.count >= expected.count })
        let same = posted.all == expected
        #expect(same, "posted in this order: \(posted.all.map(Self.summary))")
        inbox.finish()
        await a.shutdown()
        await b.shutdown()
    }

    @Test("A message that does not read ends the link with the reason, and nothing after it is posted")
    func unreadable() async throws {
        let (a, b, bobs, alices) = try await Self.streams()
        let (reading, posted, inbox) = Self.reading(alices)
        reading.start()
        try await bobs.send(Self.change(1).bytes)
        try await bobs.send([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74])  // "bplist", cut short
        try? await bobs.send(Self.change(2).bytes)
        #expect(await waitUntil { posted.all.count >= 2 })
        guard case .liveEnded(3, let problem?) = posted.all.last else {
            Issue.record("the link did not end: \(posted.all.map(Self.summary))")
            return
        }
        #expect(problem.contains("cannot read"))
        #expect(posted.all.first == .liveReceived(link: 3, Self.change(1)))
        // The reader closed its end: Bob's sees the close.
        var ended = false
        do {
            for try await _ in bobs.messages {}
            ended = true
        } catch {
            ended = true
        }
        #expect(ended)
        #expect(posted.all.count == 2, "\(posted.all.map(Self.summary))")
        inbox.finish()
        await a.shutdown()
        await b.shutdown()
    }
}
