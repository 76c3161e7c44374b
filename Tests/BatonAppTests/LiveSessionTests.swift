import Foundation
import Handoff
import PropertyList
import TerminalUI
import Testing
@testable import BatonApp

/// Two (or three) app models joined by live streams as the Program joins them: each `.liveSend`
/// goes through the message's bytes to the other model, acknowledged with `.liveSent` only when
/// the test says, so a slow follower can be played.
@MainActor
final class LiveWire {
    struct End {
        var model: AppModel
        /// Messages sent and not yet delivered, per link.
        var outbox: [(link: Int, bytes: [UInt8])] = []
        var closed: Set<Int> = []
        var stoppedPublishing = 0
        var startedActivity = 0
    }

    var ends: [String: End] = [:]
    /// Which end and link each end's link reaches.
    var peers: [String: [Int: (end: String, link: Int)]] = [:]

    init(_ models: [String: AppModel]) {
        ends = models.mapValues { End(model: $0) }
    }

    subscript(name: String) -> AppModel { ends[name]!.model }

    /// Joins `a`'s link `la` and `b`'s link `lb`: `a` opened it (its `.openLive` was answered),
    /// and the Program sent `hello` first.
    func join(_ a: String, _ la: Int, to b: String, _ lb: Int, hello: LiveMessage) {
        peers[a, default: [:]][la] = (b, lb)
        peers[b, default: [:]][lb] = (a, la)
        apply(a, .liveOpened(link: la, peerName: b, opener: true))
        apply(b, .liveOpened(link: lb, peerName: a, opener: false))
        apply(b, .liveReceived(link: lb, hello))
    }

    /// Sends `message` to `name` and carries out the commands it answers.
    @discardableResult
    func apply(_ name: String, _ message: AppMessage) -> [AppCommand] {
        let commands = BatonApp.update(&ends[name]!.model, message)
        for command in commands {
            switch command {
            case .liveSend(let link, let live): ends[name]!.outbox.append((link, live.bytes))
            case .liveClose(let link): ends[name]!.closed.insert(link)
            case .stopPublishing: ends[name]!.stoppedPublishing += 1
            case .startActivity: ends[name]!.startedActivity += 1
            default: break
            }
        }
        return commands
    }

    /// Delivers everything `name` sent (read back from bytes), acknowledging each send.
    func deliver(from name: String) throws {
        while !ends[name]!.outbox.isEmpty { try deliverOne(from: name) }
    }

    /// Delivers the oldest message `name` sent, and acknowledges it.
    func deliverOne(from name: String) throws {
        let (link, bytes) = ends[name]!.outbox.removeFirst()
        let target = try #require(peers[name]?[link])
        let message = try LiveMessage(bytes: bytes)
        apply(name, .liveSent(link: link))
        if !ends[target.end]!.closed.contains(target.link) { apply(target.end, .liveReceived(link: target.link, message)) }
    }

    /// Delivers until nobody has anything to send.
    func settle() throws {
        for _ in 0..<50 {
            let busy = ends.keys.sorted().filter { !ends[$0]!.outbox.isEmpty }
            if busy.isEmpty { return }
            for name in busy { try deliver(from: name) }
        }
        Issue.record("the wire did not settle")
    }

    func type(_ name: String, _ text: String) {
        for character in text { apply(name, .key(.character(character))) }
    }
}

@MainActor
@Suite("Live sessions: the leader sends what changed, the follower shows it, the baton goes back")
struct LiveSessionTests {
    static let helloFromContinuer = LiveMessage.hello(leads: true, activityID: "bob-activity", mayTake: true, peerName: nil)

    /// Alice's editor was continued by Bob: Bob leads, Alice follows.
    func continued(_ text: String = "one\ntwo\nthree") throws -> LiveWire {
        var alice = Fixtures.editor(text, filePath: "/home/alice/notes.txt")
        alice.send(.continuedElsewhere(peerName: "bob@desk"))
        var bob = Fixtures.editor()
        let session = try #require(Session(activityType: "dev.baton.editing", userInfo: alice.session.userInfo, from: "alice@laptop"))
        let commands = bob.send(.continued(session, from: "alice@laptop"))
        #expect(commands.contains(.openLive(activityID: nil, leads: true, mayTake: true)))
        let wire = LiveWire(["alice": alice, "bob": bob])
        wire.join("bob", 1, to: "alice", 7, hello: Self.helloFromContinuer)
        try wire.settle()
        return wire
    }

    @Test("The source follows the one who continued: what Bob types shows on Alice's screen, and Alice publishes nothing")
    func sourceFollows() throws {
        let wire = try continued()
        #expect(wire.ends["alice"]!.stoppedPublishing == 1)
        #expect(wire["alice"].live?.following?.peerName == "bob")
        // Said by the hello too: the CONTINUED datagram may come after the withdraw, and is then not told.
        #expect(wire["alice"].visibleNotice?.text == "Continued on bob")
        #expect(wire["bob"].live?.followers.map(\.peerName) == ["alice"])
        wire.apply("bob", .key(.down))
        wire.type("bob", "2: ")
        try wire.settle()
        #expect(wire["alice"].editorState.buffer.text == "one\n2: two\nthree")
        #expect(wire["alice"].editorState.buffer.cursor == TextPosition(line: 1, column: 3))
        let commands = wire.apply("alice", .key(.character("x")))
        #expect(!commands.contains(.publish))
        #expect(wire["alice"].editorState.buffer.text == "one\n2: two\nthree", "a follower never types")
        let (frame, _) = BatonApp.view(wire["alice"])
        #expect(frame.lines().contains { $0.hasPrefix("Following bob — read-only") })
        #expect(wire["alice"].live?.following?.line(takeKey: "Ctrl-T") == "Following bob — read-only · Ctrl-T takes the baton back")
    }

    @Test("A slow follower is sent the newest lines, once it took the last message: never a backlog")
    func slowFollowerGetsNewest() throws {
        let wire = try continued()
        wire.type("bob", "a")
        #expect(wire.ends["bob"]!.outbox.count == 1)
        wire.type("bob", "bcdefghij")
        #expect(wire.ends["bob"]!.outbox.count == 1, "nothing more until the first went")
        try wire.deliverOne(from: "bob")  // the first, acknowledged: the rest goes as one change
        #expect(wire.ends["bob"]!.outbox.count == 1)
        try wire.settle()
        #expect(wire["alice"].editorState.buffer.text == "abcdefghijone\ntwo\nthree")
    }

    @Test("Ctrl-T takes the baton back: the newest text, cursor and undo history, and Bob follows Alice")
    func takeBack() throws {
        let wire = try continued()
        wire.apply("bob", .key(.end))
        wire.type("bob", "!")
        try wire.settle()
        wire.apply("alice", .key(.control("t")))
        try wire.settle()
        #expect(wire["alice"].live?.followers.map(\.peerName) == ["bob"])
        #expect(wire["bob"].live?.following?.peerName == "alice")
        #expect(wire.ends["alice"]!.startedActivity == 1)
        #expect(wire.ends["bob"]!.stoppedPublishing == 1)
        #expect(wire["alice"].editorState.buffer.text == "one!\ntwo\nthree")
        #expect(wire["alice"].editorState.buffer.cursor == TextPosition(line: 0, column: 4))
        // Its own file again: Ctrl-S saves where it was opened from.
        #expect(wire["alice"].editorState.filePath == "/home/alice/notes.txt")
        #expect(wire["alice"].editorState.continuedFrom == nil && wire["alice"].editorState.isDirty)
        // Alice types; Bob follows; Ctrl-Z on Alice undoes what Bob typed before the take.
        wire.type("alice", "?")
        try wire.settle()
        #expect(wire["bob"].editorState.buffer.text == "one!?\ntwo\nthree")
        wire.apply("alice", .key(.control("z")))
        wire.apply("alice", .key(.control("z")))
        try wire.settle()
        #expect(wire["alice"].editorState.buffer.text == "one\ntwo\nthree")
        #expect(wire["bob"].editorState.buffer.text == "one\ntwo\nthree")
    }

    @Test("A change that does not fit meets a take: the taker asks again, the giver sends the state and the baton again; one leads, the other follows")
    func takeMeetsChangeThatDoesNotFit() throws {
        let wire = try continued()
        wire.type("bob", "x")  // on its way to Alice
        wire.apply("alice", .key(.control("t")))
        // Before Bob reads the take, a change reaches Alice that does not fit what she shows.
        let misfit = LiveMessage.change(
            revision: 9, base: 8, start: 40, removed: 1, lines: ["?"], lineCount: 3, cursor: TextPosition(line: 0, column: 0))
        #expect(wire.apply("alice", .liveReceived(link: 7, misfit)) == [.liveSend(link: 7, .resync)])
        #expect(wire.apply("alice", .liveReceived(link: 7, misfit)).isEmpty, "one resync on its way at a time")
        try wire.settle()
        #expect(wire["alice"].live?.followers.map(\.peerName) == ["bob"], "Alice leads")
        #expect(wire["bob"].live?.following?.peerName == "alice", "Bob follows")
        #expect(wire["alice"].editorState.buffer.text == "xone\ntwo\nthree")
        #expect(wire.ends["alice"]!.startedActivity == 1)
        wire.type("alice", "?")
        try wire.settle()
        #expect(wire["bob"].editorState.buffer.text == wire["alice"].editorState.buffer.text)
        #expect(wire["bob"].editorState.buffer.text.contains("?"))
    }

    @Test("A third machine follows read-only; when the baton moves, it is told where and its stream ends")
    func thirdFollower() throws {
        let wire = try continued()
        wire.ends["carol"] = LiveWire.End(model: Fixtures.editor())
        let asked = wire.apply("carol", .follow(activityID: "bob-activity"))
        #expect(asked == [.openLive(activityID: "bob-activity", leads: false, mayTake: false)], "still published until the stream opens")
        wire.join("carol", 3, to: "bob", 2, hello: .hello(leads: false, activityID: nil, mayTake: false, peerName: nil))
        #expect(wire.ends["carol"]!.stoppedPublishing == 1, "following now: carol's own activity withdrawn")
        try wire.settle()
        #expect(wire["carol"].editorState.buffer.text == "one\ntwo\nthree")
        wire.type("bob", "x")
        try wire.settle()
        #expect(wire["carol"].editorState.buffer.text == "xone\ntwo\nthree")
        wire.apply("carol", .key(.control("t")))
        #expect(wire.ends["carol"]!.outbox.isEmpty, "a read-only follower cannot take")
        wire.apply("alice", .key(.control("t")))
        try wire.settle()
        #expect(wire["carol"].live?.following?.linkProblem == "the session moved to alice")
        #expect(wire.ends["carol"]!.closed.contains(3))
        // The stream's end that follows changes nothing: no tries to a leader who gave it away.
        wire.apply("carol", .liveEnded(link: 3, problem: nil))
        #expect(wire["carol"].live?.following?.linkProblem == "the session moved to alice")
        #expect(wire.apply("carol", .tick(Fixtures.start.addingTimeInterval(30))).isEmpty)
    }

    @Test("A counter follows and is taken back with t")
    func counter() throws {
        var alice = Fixtures.counter(4)
        alice.send(.continuedElsewhere(peerName: "bob@desk"))
        var bob = Fixtures.counter(0)
        bob.send(.continued(.counter(CounterState(count: 4)), from: "alice@laptop"))
        let wire = LiveWire(["alice": alice, "bob": bob])
        wire.join("bob", 1, to: "alice", 7, hello: Self.helloFromContinuer)
        wire.type("bob", "++")
        try wire.settle()
        #expect(wire["alice"].session.counterState?.count == 6)
        wire.apply("alice", .key(.character("+")))
        #expect(wire["alice"].session.counterState?.count == 6)
        wire.apply("alice", .key(.character("n")))
        #expect(wire["alice"].overlay != nil, "n lists what is nearby while following")
        wire.apply("alice", .key(.escape))
        wire.apply("alice", .key(.character("t")))
        try wire.settle()
        wire.type("alice", "+")
        try wire.settle()
        #expect(wire["bob"].session.counterState?.count == 7)
    }

    @Test("A follower whose link drops says so and opens it again after 1 s, 2 s, 4 s; the next state clears it")
    func linkLost() throws {
        let wire = try continued()
        wire.apply("alice", .liveEnded(link: 7, problem: "connection reset"))
        #expect(wire["alice"].live?.following?.linkProblem == "connection reset")
        #expect(wire.apply("alice", .tick(Fixtures.start.addingTimeInterval(0.5))).isEmpty)
        #expect(wire.apply("alice", .tick(Fixtures.start.addingTimeInterval(1))) == [.openLive(activityID: "bob-activity", leads: false, mayTake: true)])
        wire.apply("alice", .liveOpenFailed("unreachable"))
        #expect(wire.apply("alice", .tick(Fixtures.start.addingTimeInterval(2))).isEmpty)
        #expect(wire.apply("alice", .tick(Fixtures.start.addingTimeInterval(3))).count == 1)
        // It opens: Bob takes it as a new follower and sends the whole state.
        wire.type("bob", "z")
        wire.join("alice", 9, to: "bob", 4, hello: .hello(leads: false, activityID: nil, mayTake: true, peerName: nil))
        try wire.settle()
        #expect(wire["alice"].live?.following?.linkProblem == nil)
        #expect(wire["alice"].editorState.buffer.text == "zone\ntwo\nthree")
        wire.apply("alice", .key(.control("t")))
        try wire.settle()
        #expect(wire["alice"].live?.followers.map(\.peerName) == ["bob"])
    }

    @Test("After a continue, a source not reachable yet is tried again after 1, 2 and 4 s; a refusal is not")
    func leadRetries() throws {
        var bob = Fixtures.counter(0)
        bob.send(.continued(.counter(CounterState(count: 4)), from: "alice@laptop"))
        let at = { (seconds: Double) in AppMessage.tick(Fixtures.start.addingTimeInterval(seconds)) }
        let again: [AppCommand] = [.openLive(activityID: nil, leads: true, mayTake: true)]
        bob.send(.liveOpenFailed("the relay is not connected", retry: true))
        #expect(bob.wantsTicks)
        #expect(bob.send(at(0.5)).isEmpty)
        #expect(bob.send(at(1)) == again)
        bob.send(.liveOpenFailed("the relay is not connected", retry: true))
        #expect(bob.send(at(2.5)).isEmpty)
        #expect(bob.send(at(3)) == again)
        bob.send(.liveOpenFailed("the relay is not connected", retry: true))
        #expect(bob.send(at(7)) == again)
        bob.send(.liveOpenFailed("the relay is not connected", retry: true))
        #expect(bob.send(at(60)).isEmpty, "three tries, then no more")
        #expect(bob.visibleNotice?.text.contains("Could not") != true, "nothing said: the session goes on here")

        var carol = Fixtures.counter(0)
        carol.send(.continued(.counter(CounterState(count: 4)), from: "alice@laptop"))
        carol.send(.liveOpenFailed("alice takes no live sessions", retry: false))
        #expect(carol.send(at(30)).isEmpty)
        // A retry that opens leads as the first try would have.
        bob = Fixtures.counter(0)
        bob.send(.continued(.counter(CounterState(count: 4)), from: "alice@laptop"))
        bob.send(.liveOpenFailed("not connected", retry: true))
        #expect(bob.send(at(1)) == again)
        let opened = bob.send(.liveOpened(link: 2, peerName: "alice", opener: true))
        #expect(bob.live?.followers.map(\.peerName) == ["alice"])
        #expect(opened.count == 1)
    }

    @Test("A leader that quits sends what it owes before closing")
    func quitFlushes() throws {
        let wire = try continued()
        wire.type("bob", "a")
        wire.type("bob", "b")  // gathered behind the first
        wire.apply("bob", .key(.control("q")))
        wire.apply("bob", .key(.character("n")))  // quit without saving
        try wire.settle()
        #expect(wire["alice"].editorState.buffer.text == "abone\ntwo\nthree")
        #expect(wire.ends["bob"]!.closed.contains(1))
        // The leader closed the stream: Alice says so, tries nothing, and Ctrl-T keeps the text as hers.
        wire.apply("alice", .liveEnded(link: 7, problem: nil))
        #expect(wire["alice"].live?.following?.line(takeKey: "Ctrl-T") == "Following bob — it ended the session · Ctrl-T makes it yours")
        #expect(wire.apply("alice", .tick(Fixtures.start.addingTimeInterval(20))).isEmpty)
        let kept = wire.apply("alice", .key(.control("t")))
        #expect(kept.contains(.startActivity) && wire["alice"].live == nil)
        #expect(wire["alice"].editorState.buffer.text == "abone\ntwo\nthree" && wire["alice"].editorState.isDirty)
        wire.type("alice", "!")
        #expect(wire["alice"].editorState.buffer.text == "ab!one\ntwo\nthree", "hers to type into, where the cursor was")
    }
}

@Suite("Live messages and line changes")
struct LiveMessageTests {
    @Test("Every kind reads back as written")
    func roundTrip() throws {
        let messages: [LiveMessage] = [
            .hello(leads: true, activityID: "A", mayTake: true, peerName: "alice@laptop"), .hello(leads: false, activityID: nil, mayTake: false, peerName: nil),
            .state(revision: 3, activityType: "dev.baton.counter", userInfo: ["count": 5]),
            .change(revision: 4, base: 3, start: 1, removed: 2, lines: ["x", "", "Grüße 👋"], lineCount: 9, cursor: TextPosition(line: 2, column: 1)),
            .take, .given(revision: 4, cursor: TextPosition(line: 0, column: 0), undoHistory: ["steps": []]), .resync,
            .moved(peerName: "alice"),
        ]
        for message in messages { #expect(try LiveMessage(bytes: message.bytes) == message) }
        #expect(messages.count == 8)
    }

    @Test("Hostile bytes are an error, never a crash")
    func hostile() {
        var random = SplitMix64(seed: 7)
        let good = LiveMessage.change(revision: 1, base: 0, start: 0, removed: 1, lines: ["a"], lineCount: 1, cursor: .init(line: 0, column: 0)).bytes
        var refused = 0
        for round in 0..<2_000 {
            var bytes = good
            if round % 2 == 0 {
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            } else {
                bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            if (try? LiveMessage(bytes: bytes)) == nil { refused += 1 }
        }
        #expect(refused > 1_000)
        // A later kind is skipped by the reader; a missing kind is an error.
        #expect(throws: LiveMessage.ReadError.unknownKind) {
            try LiveMessage(bytes: BinaryPropertyListWriter().write(["kind": "other"]))
        }
        #expect(throws: LiveMessage.ReadError.malformed("no kind")) {
            try LiveMessage(bytes: BinaryPropertyListWriter().write(["revision": 1]))
        }
        #expect(throws: LiveMessage.ReadError.malformed("mayTake is not a boolean")) {
            try LiveMessage(bytes: BinaryPropertyListWriter().write(["kind": "hello", "leads": true, "mayTake": 1]))
        }
        #expect(throws: LiveMessage.ReadError.malformed("a line that is not one line")) {
            try LiveMessage(bytes: BinaryPropertyListWriter().write([
                "kind": "change", "revision": 1, "base": 0, "start": 0, "removed": 1, "lines": ["a\nb"], "lineCount": 2,
                "cursorLine": 0, "cursorColumn": 0,
            ]))
        }
    }

    @Test("Random edits, gathered as line changes and replayed as lines, leave the follower's text the leader's", arguments: [1, 2, 3])
    func replay(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var leader = TextBuffer(text: "alpha\nbeta\ngamma\ndelta")
        var follower = leader
        for round in 0..<400 {
            let line = Int(random.next() % UInt64(leader.lineCount))
            leader.move(to: TextPosition(line: line, column: Int(random.next() % 4)))
            switch random.next() % 5 {
            case 0: leader.insert("\n")
            case 1: leader.backspace()
            case 2: leader.deleteForward()
            case 3: leader.insert("x\ny\nz")
            default: leader.insert("é")
            }
            if round % 7 == 0 || round == 399 {
                let changes = leader.takeLineChanges()
                let range = changes.replaced
                let fitted = follower.replaceLines(from: range.start, removed: range.removed, with: leader.lines(from: range.start, count: range.inserted))
                #expect(fitted)
                #expect(follower.text == leader.text, "round \(round)")
            }
        }
    }
}
