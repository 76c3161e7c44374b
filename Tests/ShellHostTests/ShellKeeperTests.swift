import BatonShell
import Foundation
import Handoff
import HandoffTesting
import HandoffWire
import Logging
@testable import ShellHost
import Testing

/// A keeper running a real shell on a pseudo-terminal, and terminals joined to it over
/// continuation streams on the in-memory network: the runners, not only the rules.
@MainActor
@Suite("A shell session's keeper and its terminals")
struct ShellKeeperTests {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let registry = ActivityTypeRegistry(
        declaredTypes: [ShellKeeper.activityType],
        schemas: [
            ShellKeeper.activityType: ActivitySchema(
                keyTypes: ["folder": .string, "command": .string, "rows": .integer, "columns": .integer],
                requiredKeys: ["folder", "command", "rows", "columns"])
        ])

    /// What a terminal shows and what it is fed.
    @MainActor
    final class Terminal {
        var screen: ShellScreen?
        var status: String?
        let input: AsyncStream<ShellViewerEvent>
        let feed: AsyncStream<ShellViewerEvent>.Continuation
        var ending: ShellViewerCore.Ending?
        init() { (input, feed) = AsyncStream.makeStream() }
        func type(_ text: String) { feed.yield(.input(.text(text, modifiers: []))) }
        func press(_ key: ShellKey) { feed.yield(.input(.key(key, modifiers: []))) }
        func shows(_ text: String) -> Bool { screen?.text.contains(text) == true }
    }

    static func center(
        _ network: InMemoryNetwork, _ streams: InMemoryStreams, name: String, port: Int, clock: any HandoffClock = SystemClock()
    ) -> ActivityCenter {
        let shelf = StateShelf()
        let center = ActivityCenter(
            registry: registry, membership: .sharedDevice(of: key, name: name), transport: network.makeTransport(name: "\(name).test"),
            configuration: ActivityCenter.Configuration(peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0")),
            clock: clock, stateStream: StateStreamSetup(shelf: shelf, port: port, dialer: streams))
        center.start()
        _ = streams.serve(
            host: "\(name).test", port: port, identity: center.membership.streamIdentity(senderID: center.senderID),
            trust: center.membership.streamTrust, shelf: shelf)
        return center
    }

    static func join(_ center: ActivityCenter, _ entry: NearbyActivity, role: ShellMessage.Role, name: String) async throws -> Terminal {
        let terminal = Terminal()
        let stream = try await center.openContinuationStream(to: entry)
        let core = ShellViewerCore(role: role, name: name, keeperName: entry.record.peer.name, rows: 6, columns: 40)
        Task { @MainActor in
            terminal.ending = await ShellViewer.run(stream: stream, core: core, input: terminal.input) { screen, status in
                // Drawn on the viewer's event loop; kept on the main actor, in order.
                Task { @MainActor in
                    terminal.screen = screen
                    terminal.status = status
                }
            }
        }
        return terminal
    }

    /// A keeper of `arguments` (10 × 50) on `a`, running, and its session as `b` hears it. On a
    /// manual `clock` (`a`'s), the keeper's saves wait on it: it is moved until `b` hears them.
    static func keep(
        on a: ActivityCenter, heardBy b: ActivityCenter, arguments: [String] = ["/bin/sh"], clock: ManualClock? = nil
    ) async throws -> (run: Task<Int, Never>, entry: NearbyActivity) {
        let keeper = try ShellKeeper(
            center: a, arguments: arguments, environment: ["TERM": "xterm-256color", "PS1": "$ ", "PATH": "/usr/bin:/bin"],
            folder: "/", rows: 10, columns: 50, allowsListedDevices: false, logger: Logger(label: "test"))
        let id = keeper.activityID
        let run = Task { @MainActor in await keeper.run() }
        #expect(await waitUntil {
            clock?.advance(by: .milliseconds(50))
            return b.nearby.contains { $0.id == id }
        })
        return (run, try #require(b.nearby.first { $0.id == id }))
    }

    /// The keeper's status once `run` returns, or nil when it has not within `waitUntil`'s
    /// minute: a key that never reached the program fails the test instead of hanging it.
    static func status(of run: Task<Int, Never>) async -> Int? {
        var status: Int?
        Task { @MainActor in status = await run.value }
        guard await waitUntil({ status != nil }) else { return nil }
        return status
    }

    /// Alice's center (the keeper's, on `port`, with `clock`) and bob's (on `port` + 1), on one
    /// in-memory network.
    static func pair(port: Int, clock: any HandoffClock = SystemClock()) -> (ActivityCenter, ActivityCenter) {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        return (center(network, streams, name: "alice", port: port, clock: clock), center(network, streams, name: "bob", port: port + 1))
    }

    @Test("A terminal of the keeper's own device drives a real shell; a second one follows; the exit status reaches both")
    func driveFollowExit() async throws {
        let (a, b) = Self.pair(port: 41_001)
        let (run, entry) = try await Self.keep(on: a, heardBy: b)
        #expect(entry.record.userInfo["command"] == .string("sh"))
        #expect(entry.record.continuationPort == 41_001)

        let driver = try await Self.join(b, entry, role: .drive, name: "alice")
        // The program takes the driving terminal's size.
        #expect(await waitUntil { driver.screen?.rowCount == 6 && driver.screen?.columns == 40 && driver.status == nil })
        driver.type("echo hi$((40+2))")
        driver.press(.enter)
        #expect(await waitUntil { driver.shows("hi42") })

        let follower = try await Self.join(b, entry, role: .follow, name: "carol")
        #expect(await waitUntil { follower.shows("hi42") })
        #expect(follower.status?.hasPrefix("Following the session on alice (alice drives)") == true)
        follower.type("echo nope")
        follower.press(.enter)
        driver.type("stty size")
        driver.press(.enter)
        #expect(await waitUntil { driver.shows("6 40") && follower.shows("6 40") })
        #expect(!(driver.screen?.text.contains("nope") ?? true))

        driver.type("exit 7")
        driver.press(.enter)
        #expect(await Self.status(of: run) == 7)
        #expect(await waitUntil { driver.ending == .ended(status: 7) && follower.ending == .ended(status: 7) })
        await a.shutdown()
        await b.shutdown()
    }

    @Test("Hostile terminals: bytes that are not a message, and a screen sent to the keeper, close that terminal only")
    func hostileTerminals() async throws {
        let (a, b) = Self.pair(port: 41_011)
        let (run, entry) = try await Self.keep(on: a, heardBy: b)

        let garbage = try await b.openContinuationStream(to: entry)
        try await garbage.send([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0xFF, 0x00])
        let garbageReader = MessageReader(garbage)
        #expect(await waitUntil { garbageReader.end != nil })

        let impostor = try await b.openContinuationStream(to: entry)
        try await impostor.send(ShellMessage.hello(role: .follow, peerName: "mallory", rows: 5, columns: 20).bytes)
        let update = ShellScreenUpdate(from: nil, to: ShellScreen(rows: 5, columns: 20), revision: 1)
        try await impostor.send(ShellMessage.screen(update).bytes)
        let impostorReader = MessageReader(impostor)
        #expect(await waitUntil { impostorReader.end != nil })

        // The session is unharmed: a terminal joins, drives, and the shell answers.
        let driver = try await Self.join(b, entry, role: .drive, name: "alice")
        driver.type("echo ok$((2*3))")
        driver.press(.enter)
        #expect(await waitUntil { driver.shows("ok6") })
        driver.type("exit")
        driver.press(.enter)
        #expect(await Self.status(of: run) == 0)
        await a.shutdown()
        await b.shutdown()
    }

    @Test("A driving terminal that stops saying it showed its screens (stopped with Ctrl-Z) holds a follower back a moment, not until the next change")
    func stoppedDriver() async throws {
        // The keeper's clock is moved by hand: its screens (20 ms apart), the followers' wait
        // and a terminal's 5 s for its hello pass only when the test says, however long a
        // loaded run keeps the test's actor from sending the driver's hello.
        let clock = ManualClock(start: Date())  // near bob's clock: datagrams from far off are refused
        let (a, b) = Self.pair(port: 41_041, clock: clock)
        // A program whose answer is its last change: nothing is written after it.
        let (run, entry) = try await Self.keep(
            on: a, heardBy: b, arguments: ["/bin/sh", "-c", "read x; printf 'got-%s' \"$x\"; sleep 30"], clock: clock)
        let follower = try await Self.join(b, entry, role: .follow, name: "carol")
        // A driver of the keeper's own device: it says it showed each screen until one shows the
        // answer, and then nothing more.
        let driver = try await b.openContinuationStream(to: entry)
        let driverReader = MessageReader(driver)
        try await driver.send(ShellMessage.hello(role: .drive, peerName: "alice", rows: 6, columns: 40).bytes)
        try await driver.send(ShellMessage.input(.text("abc", modifiers: [])).bytes)
        try await driver.send(ShellMessage.input(.key(.enter, modifiers: [])).bytes)
        var screen: ShellScreen?
        var read = 0
        var acks: [Int] = []
        var answered = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !answered, ContinuousClock.now < deadline {
            clock.advance(by: ShellKeeperEngine.screenInterval)
            _ = await waitUntil(timeout: .milliseconds(200)) {
                for bytes in driverReader.messages.dropFirst(read) {
                    read += 1
                    guard case .screen(let update)? = try? ShellMessage(bytes: bytes), let next = try? update.applied(to: screen) else { continue }
                    screen = next
                    if next.text.contains("got-abc") { answered = true } else { acks.append(update.revision) }
                }
                return answered || !acks.isEmpty
            }
            for revision in acks { try await driver.send(ShellMessage.shown(revision: revision).bytes) }
            acks.removeAll()
        }
        #expect(answered)
        // The driver says nothing more: once the followers' wait has passed on the clock, the
        // follower gets the answer with no further change to the screen.
        clock.advance(by: ShellKeeperCore.followerWait)
        #expect(await waitUntil { follower.shows("got-abc") })
        try await driver.send(ShellMessage.input(.text("c", modifiers: .control)).bytes)
        // The keeper ends once each terminal answered its close, or after the close's 2 s of its
        // clock: the clock is moved on while it ends, or a close left unanswered would wait for ever.
        var ended = false
        Task { @MainActor in
            _ = await run.value
            ended = true
        }
        #expect(await waitUntil {
            if !ended { clock.advance(by: .milliseconds(100)) }
            return ended
        })
        await a.shutdown()
        await b.shutdown()
    }

    @Test("A flood of output, parsed on the parser's thread, ends on the screen with its last line before the program's status")
    func flood() async throws {
        // The keeper's clock is the test's: a terminal still showing an update when the program
        // ends has `endingWait` of it to say so, and on the system's clock a run of the whole
        // suite on two cores once let those 2 s pass, so that `ended` came without the last screen.
        let clock = ManualClock(start: Date())  // near bob's clock: datagrams from far off are refused
        let (a, b) = Self.pair(port: 41_051, clock: clock)
        // 4 MB once Enter is typed, then the last line, and the program ends straight after it.
        let flood = "awk 'BEGIN { for (i = 0; i < 80000; i++) printf \"flood %06d ......................................\\n\", i }'"
        let (run, entry) = try await Self.keep(
            on: a, heardBy: b, arguments: ["/bin/sh", "-c", "read go; \(flood); echo the-last-line; exit 5"], clock: clock)
        let driver = try await Self.join(b, entry, role: .drive, name: "alice")
        #expect(await waitUntil { driver.screen?.rowCount == 6 && driver.status == nil })
        driver.press(.enter)
        #expect(await Self.status(of: run) == 5)
        #expect(await waitUntil { driver.ending == .ended(status: 5) })
        #expect(driver.shows("flood 079999") && driver.shows("the-last-line"))
        await a.shutdown()
        await b.shutdown()
    }

    @Test("A program that ends at once: the keeper returns its status, whether it was reaped before the keeper waited or after")
    func endsAtOnce() async throws {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let a = Self.center(network, streams, name: "alice", port: 41_031)
        for code in [0, 3, 7] {
            let keeper = try ShellKeeper(
                center: a, arguments: ["/bin/sh", "-c", "exit \(code)"], environment: ["PATH": "/usr/bin:/bin"],
                folder: "/", rows: 10, columns: 50, allowsListedDevices: false, logger: Logger(label: "test"))
            let run = Task { @MainActor in await keeper.run() }
            #expect(await Self.status(of: run) == code)
        }
        await a.shutdown()
    }

    @Test("A terminal that says nothing is closed once 5 s of the keeper's clock passed, not before")
    func silentTerminal() async throws {
        let clock = ManualClock(start: Date())  // near bob's clock: datagrams from far off are refused
        let (a, b) = Self.pair(port: 41_021, clock: clock)
        let keeper = try ShellKeeper(
            center: a, arguments: ["/bin/sh"], environment: ["PATH": "/usr/bin:/bin"],
            folder: "/", rows: 10, columns: 50, allowsListedDevices: false, logger: Logger(label: "test"))
        let id = keeper.activityID
        let run = Task { @MainActor in await keeper.run() }
        // The keeper's saves wait on its clock: it is moved until the session is heard.
        #expect(await waitUntil {
            clock.advance(by: .milliseconds(50))
            return b.nearby.contains { $0.id == id }
        })
        let entry = try #require(b.nearby.first { $0.id == id })
        let silent = try await b.openContinuationStream(to: entry)
        let reader = MessageReader(silent)
        #expect(await waitUntil { keeper.terminalCount == 1 })
        clock.advance(by: .milliseconds(4_999))
        #expect(keeper.terminalCount == 1 && reader.end == nil)
        clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { reader.end != nil && keeper.terminalCount == 0 })
        keeper.hangUp()
        #expect(await Self.status(of: run) == 129)
        await a.shutdown()
        await b.shutdown()
    }
}
