import BatonShell
import Testing

/// A keeper and its terminals joined in memory: every message goes through its bytes, and
/// nothing moves until `run` delivers what is queued.
struct SessionHarness {
    var keeper: ShellKeeperCore
    var viewers: [Int: ShellViewerCore] = [:]
    var origins: [Int: ShellKeeperCore.Origin] = [:]
    var toKeeper: [(Int, ShellMessage)] = []
    var toViewer: [(Int, ShellMessage)] = []
    var shown: [Int: (ShellScreen, String?)] = [:]
    var left: [Int: ShellViewerCore.Ending] = [:]
    var closed: Set<Int> = []
    var typed: [ShellInput] = []
    var sizes: [(Int, Int)] = []
    var now = ContinuousClock.now

    init(allowsListed: Bool = false) {
        keeper = ShellKeeperCore(screen: ShellScreen(rows: 24, columns: 80), allowsListedDevices: allowsListed)
    }

    mutating func join(_ id: Int, _ role: ShellMessage.Role, origin: ShellKeeperCore.Origin, name: String, rows: Int = 30, columns: Int = 100) {
        let viewer = ShellViewerCore(role: role, name: name, keeperName: "alice@laptop", rows: rows, columns: columns)
        viewers[id] = viewer
        origins[id] = origin
        perform(keeper.join(id, origin: origin, hello: try! ShellMessage(bytes: viewer.hello.bytes), now: now))
        run()
    }

    mutating func key(_ id: Int, _ input: ShellInput) {
        let actions = viewers[id]!.input(input)
        viewerActions(id, actions)
        run()
    }

    mutating func perform(_ actions: [ShellKeeperCore.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message): toViewer.append((id, try! ShellMessage(bytes: message.bytes)))
            case .close(let id): closed.insert(id)
            case .type(let input): typed.append(input)
            case .resize(let rows, let columns):
                sizes.append((rows, columns))
                var screen = keeper.screen
                screen.resize(rows: rows, columns: columns)
                perform(keeper.screenChanged(screen, now: now))
            }
        }
    }

    mutating func viewerActions(_ id: Int, _ actions: [ShellViewerCore.Action]) {
        for action in actions {
            switch action {
            case .send(let message): toKeeper.append((id, try! ShellMessage(bytes: message.bytes)))
            case .show(let screen, let status): shown[id] = (screen, status)
            case .leave(let ending): left[id] = ending
            }
        }
    }

    /// Delivers until nothing is queued; a closed terminal's stream ends after what was sent to it.
    mutating func run() {
        while !toKeeper.isEmpty || !toViewer.isEmpty {
            if !toViewer.isEmpty {
                let (id, message) = toViewer.removeFirst()
                guard var viewer = viewers[id], left[id] == nil else { continue }
                let actions = viewer.receive(message)
                viewers[id] = viewer
                viewerActions(id, actions)
                continue
            }
            let (id, message) = toKeeper.removeFirst()
            guard !closed.contains(id), left[id] == nil else { continue }
            perform(keeper.receive(id, message, now: now))
        }
    }

    func status(_ id: Int) -> String? { shown[id]?.1 }
}

@Suite("Who drives a shell session, and who is asked")
struct ShellSessionRulesTests {
    @Test("This machine drives at once; another machine is asked, takes it when allowed, and the key takes it back")
    func takeAndTakeBack() {
        var h = SessionHarness()
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop", rows: 30, columns: 100)
        #expect(h.keeper.driverName == "alice@laptop")
        #expect(h.sizes.last! == (30, 100))
        #expect(h.status(1) == nil)
        h.join(2, .drive, origin: .listedDevice, name: "bob@desk", rows: 50, columns: 160)
        #expect(h.keeper.driverName == "alice@laptop")
        #expect(h.status(1) == "bob@desk asks to take this session: y/N")
        // While asked, keys answer the question and reach no program.
        h.key(1, .text("x", modifiers: []))
        #expect(h.typed.isEmpty)
        h.key(1, .text("y", modifiers: []))
        #expect(h.keeper.driverName == "bob@desk")
        #expect(h.sizes.last! == (50, 160))
        #expect(h.status(1)?.hasPrefix("Following the session on alice@laptop (bob@desk drives)") == true)
        // bob types; alice's keys reach nothing.
        h.key(2, .text("ls", modifiers: []))
        h.key(1, .text("rm", modifiers: []))
        #expect(h.typed == [.text("ls", modifiers: [])])
        #expect(h.status(1)?.hasPrefix("This terminal follows") == true)
        // The take-back key: this machine takes it without a question.
        h.key(1, .text("t", modifiers: []))
        #expect(h.keeper.driverName == "alice@laptop")
        #expect(h.sizes.last! == (30, 100))
        #expect(h.viewers[2]!.drives == false)
        // And bob, allowed once, takes it again without a question.
        h.key(2, .text("t", modifiers: []))
        #expect(h.keeper.driverName == "bob@desk")
        #expect(h.status(1)?.hasPrefix("Following") == true)
    }

    @Test("A no, no answer, and nobody to ask: refused, and the asker leaves with the reason")
    func refusals() {
        var h = SessionHarness()
        h.join(2, .drive, origin: .listedDevice, name: "bob@desk")
        #expect(h.left[2] == .refused("nobody is at this session to answer; on its machine, `baton shell --allow-listed` lets listed devices take it without asking"))
        #expect(h.closed.contains(2))
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop")
        h.join(3, .drive, origin: .listedDevice, name: "carol@host3")
        h.key(1, .text("n", modifiers: []))
        #expect(h.left[3] == .refused("alice@laptop said no"))
        h.join(4, .drive, origin: .listedDevice, name: "dave@host4")
        // A second asker while one is asked is told to wait.
        h.join(5, .drive, origin: .listedDevice, name: "erin@host5")
        #expect(h.left[5] == .refused("another machine is asking for this session; try again in a moment"))
        h.now += ShellKeeperCore.answerTime - .milliseconds(1)
        h.perform(h.keeper.tick(now: h.now))
        h.run()
        #expect(h.left[4] == nil)
        h.now += .milliseconds(1)
        h.perform(h.keeper.tick(now: h.now))
        h.run()
        #expect(h.left[4] == .refused("alice@laptop did not answer"))
        #expect(h.keeper.driverName == "alice@laptop")
        #expect(h.status(1) == nil)
    }

    @Test("With listed devices allowed, another machine takes the session without a question; a follower only watches")
    func allowedAndFollowers() {
        var h = SessionHarness(allowsListed: true)
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop")
        h.join(2, .drive, origin: .listedDevice, name: "bob@desk")
        #expect(h.keeper.driverName == "bob@desk")
        h.join(3, .follow, origin: .listedDevice, name: "carol@host3")
        #expect(h.viewers[3]!.drives == false)
        #expect(h.shown[3] != nil)
        // carol's terminal (30 × 100) is smaller than the session, which takes bob's 30 × 100 less
        // its status row: it says it shows the top left.
        #expect(h.status(3)?.hasSuffix(" · cropped: 100×29 of 100×30") == true)
        h.key(3, .key(.up, modifiers: []))
        #expect(h.typed.isEmpty)
        // A follower's input that reaches the keeper anyway (a hostile one) is dropped.
        h.perform(h.keeper.receive(3, .input(.text("rm -rf ~", modifiers: [])), now: h.now))
        h.perform(h.keeper.receive(3, .resize(rows: 2, columns: 2), now: h.now))
        #expect(h.typed.isEmpty && h.keeper.dropped == 1)
        #expect(h.keeper.screen.rowCount == 30)
        // A terminal that sends what only the keeper sends is closed.
        h.perform(h.keeper.receive(3, .role(drives: true, driver: "carol@host3"), now: h.now))
        #expect(h.closed.contains(3) && h.keeper.terminalCount == 2)
        // The driver leaves: nobody drives, the program goes on, alice takes it back with t.
        h.perform(h.keeper.left(2))
        h.run()
        #expect(h.keeper.driverName == nil)
        #expect(h.status(1)?.contains("nobody drives it now") == true)
        h.key(1, .text("t", modifiers: []))
        #expect(h.keeper.driverName == "alice@laptop")
    }

    @Test("A changed screen goes to the driving terminal; the followers get it, in order, once the driver showed it, or at once when the driver is slow or leaves")
    func driverFirst() {
        var h = SessionHarness(allowsListed: true)
        h.join(1, .follow, origin: .listedDevice, name: "carol@host3")
        h.join(2, .follow, origin: .listedDevice, name: "dave@host4")
        h.join(3, .drive, origin: .listedDevice, name: "bob@desk")
        h.run()
        #expect(h.keeper.driverName == "bob@desk")
        func screens(_ actions: [ShellKeeperCore.Action]) -> [(id: Int, revision: Int)] {
            actions.compactMap { action in
                guard case .send(let id, .screen(let update)) = action else { return nil }
                return (id, update.revision)
            }
        }
        var screen = h.keeper.screen
        func change(_ text: String) -> [ShellKeeperCore.Action] {
            screen.setRow(0, text.map { ShellCell(String($0)) } + Array(repeating: ShellCell(" "), count: screen.columns - text.count))
            return h.keeper.screenChanged(screen, now: h.now)
        }
        // The driver alone; its `shown` brings the followers theirs.
        let first = screens(change("x"))
        #expect(first.map(\.id) == [3])
        let followers = screens(h.keeper.receive(3, .shown(revision: first[0].revision), now: h.now))
        #expect(followers.map(\.id) == [1, 2])
        // A follower's own `shown` does not jump the queue while the driver shows a newer screen.
        let second = screens(change("xy"))
        #expect(second.map(\.id) == [3])
        #expect(screens(h.keeper.receive(1, .shown(revision: followers[0].revision), now: h.now)).isEmpty)
        // The driver has not said it showed that one: it is slow, and the next change goes to
        // the followers at once (1 said it showed its last; 2 has not, so it waits for its own).
        let third = screens(change("xyz"))
        #expect(third.map(\.id) == [1])
        // Everyone says it showed what it has: 2 then gets the newest, the driver too.
        #expect(screens(h.keeper.receive(2, .shown(revision: followers[1].revision), now: h.now)).map(\.id) == [2])
        let toDriver = screens(h.keeper.receive(3, .shown(revision: second[0].revision), now: h.now))
        #expect(toDriver.map(\.id) == [3])
        _ = h.keeper.receive(3, .shown(revision: toDriver[0].revision), now: h.now)
        _ = h.keeper.receive(1, .shown(revision: third[0].revision), now: h.now)
        _ = h.keeper.receive(2, .shown(revision: followers[1].revision + 1), now: h.now)
        // The driver leaves while the followers wait for its `shown`: they get the newest now.
        #expect(screens(change("w")).map(\.id) == [3])
        #expect(screens(h.keeper.left(3)).map(\.id) == [1, 2])
    }

    @Test("A driving terminal that never says it showed a screen (stopped with Ctrl-Z) holds the followers back 50 ms of the keeper's clock, not more")
    func stoppedDriver() {
        var h = SessionHarness(allowsListed: true)
        h.join(1, .follow, origin: .listedDevice, name: "carol@host3")
        h.join(3, .drive, origin: .listedDevice, name: "bob@desk")
        h.run()
        var screen = h.keeper.screen
        screen.setRow(0, "x".map { ShellCell(String($0)) } + Array(repeating: ShellCell(" "), count: screen.columns - 1))
        let start = h.now
        let sent = h.keeper.screenChanged(screen, now: start)
        #expect(sent.count == 1 && h.keeper.nextDeadline == start + ShellKeeperCore.followerWait)
        #expect(h.keeper.tick(now: start + .milliseconds(49)).isEmpty)
        let late = h.keeper.tick(now: start + .milliseconds(50))
        #expect(late.count == 1, "the follower's update: \(late)")
        if case .send(1, .screen(let update))? = late.first { #expect(update.lines.contains { $0.row == 0 }) } else { Issue.record("no screen for 1") }
        #expect(h.keeper.nextDeadline == nil)
    }

    @Test("One update in flight per terminal: what changes meanwhile comes as one, the newest")
    func newestNotBacklog() {
        var h = SessionHarness()
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop", rows: 3, columns: 5)
        // Hold the terminal's acknowledgements: three changes while an update is on its way.
        var screen = h.keeper.screen
        var sent: [ShellMessage] = []
        for text in ["a    ", "ab   ", "abc  "] {
            screen.setRow(0, text.map { ShellCell(String($0)) })
            for case .send(1, let message) in h.keeper.screenChanged(screen, now: h.now) { sent.append(message) }
        }
        #expect(sent.count == 1)
        guard case .screen(let first) = sent.first else { Issue.record("no update"); return }
        h.toViewer.append((1, .screen(first)))
        h.run()
        // After the acknowledgement, the newest screen came: the last text.
        #expect(h.viewers[1]!.screen?.text(ofRow: 0) == "abc  ")
        h.perform(h.keeper.programEnded(status: 130, now: h.now))
        h.run()
        #expect(h.left[1] == .ended(status: 130))
        #expect(h.closed.contains(1))
    }

    @Test("Driving, Ctrl-] starts a command: d leaves, Ctrl-] again types Ctrl-]")
    func commandKey() {
        var h = SessionHarness()
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop")
        h.key(1, ShellViewerCore.commandKey)
        #expect(h.status(1)?.hasPrefix("Ctrl-] then") == true)
        h.key(1, ShellViewerCore.commandKey)
        #expect(h.typed == [ShellViewerCore.commandKey])
        h.key(1, ShellViewerCore.commandKey)
        h.key(1, .text("d", modifiers: []))
        #expect(h.left[1] == .detached)
        #expect(h.typed.count == 1)
    }
}

@Suite("A terminal that asked to drive")
struct ShellViewerHoldTests {
    @Test("Keys typed before the keeper's answer are held and sent once it drives; dropped when refused")
    func heldUntilAnswered() {
        var core = ShellViewerCore(role: .drive, name: "alice@laptop", keeperName: "alice@laptop", rows: 5, columns: 20)
        #expect(core.input(.text("echo hi", modifiers: [])).isEmpty)
        #expect(core.input(.key(.enter, modifiers: [])).isEmpty)
        let actions = core.receive(.role(drives: true, driver: "alice@laptop"))
        #expect(actions == [
            .send(.resize(rows: 5, columns: 20)), .send(.input(.text("echo hi", modifiers: []))), .send(.input(.key(.enter, modifiers: []))),
        ])
        // After t, too: what is typed before the answer waits for it.
        var follower = ShellViewerCore(role: .follow, name: "carol@host3", keeperName: "alice@laptop", rows: 5, columns: 20)
        _ = follower.receive(.role(drives: false, driver: "alice@laptop"))
        #expect(follower.input(.text("t", modifiers: [])).first == .send(.take))
        #expect(follower.input(.text("ls", modifiers: [])).isEmpty)
        #expect(follower.receive(.role(drives: true, driver: "carol@host3")).contains(.send(.input(.text("ls", modifiers: [])))))
        var refused = ShellViewerCore(role: .drive, name: "bob@desk", keeperName: "alice@laptop", rows: 5, columns: 20)
        #expect(refused.input(.text("rm", modifiers: [])).isEmpty)
        #expect(refused.receive(.refused(reason: "alice@laptop said no")) == [.leave(.refused("alice@laptop said no"))])
    }
}
