import BatonShell
import Testing

/// The program's end as the terminals are told it: the last screen first, then `ended`.
@Suite("A shell session's end")
struct ShellEndingTests {
    static func row(_ text: String, _ h: SessionHarness) -> ShellScreen {
        var screen = h.keeper.screen
        screen.setRow(0, text.map { ShellCell(String($0)) } + Array(repeating: ShellCell(" "), count: screen.columns - text.count))
        return screen
    }

    @Test("A terminal still showing an update when the program ends gets the last screen, then ended")
    func lastScreenBeforeEnded() {
        var h = SessionHarness()
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop", rows: 3, columns: 10)
        h.join(2, .follow, origin: .thisDevice, name: "alice@laptop", rows: 3, columns: 10)
        // Two changes, the second while the first is on its way to each; then the program ends.
        h.perform(h.keeper.screenChanged(Self.row("cat", h), now: h.now))
        h.perform(h.keeper.screenChanged(Self.row("the end", h), now: h.now))
        let ended = h.keeper.programEnded(status: 0, now: h.now)
        #expect(ended.isEmpty, "nothing is told before the updates on their way are shown: \(ended)")
        #expect(h.keeper.nextDeadline == h.now + ShellKeeperCore.endingWait)
        h.run()
        for id in [1, 2] {
            #expect(h.shown[id]?.0.text(ofRow: 0).hasPrefix("the end") == true, "terminal \(id)")
            #expect(h.left[id] == .ended(status: 0))
            #expect(h.closed.contains(id))
        }
        #expect(h.keeper.nextDeadline == nil)
        // A terminal that comes after is told at once.
        let late = h.keeper.join(3, origin: .thisDevice, hello: .hello(role: .follow, peerName: "x", rows: 3, columns: 10), now: h.now)
        #expect(late == [.send(3, .ended(status: 0)), .close(3)])
    }

    @Test("A terminal that never says it showed its update is told of the end 2 s of the clock later, not before; its keys go nowhere")
    func silentTerminalEnded() {
        var h = SessionHarness()
        h.join(1, .drive, origin: .thisDevice, name: "alice@laptop", rows: 3, columns: 10)
        let sent = h.keeper.screenChanged(Self.row("cat", h), now: h.now)
        #expect(sent.count == 1)
        let start = h.now
        #expect(h.keeper.programEnded(status: 9, now: start).isEmpty)
        #expect(h.keeper.receive(1, .input(.text("x", modifiers: [])), now: start).isEmpty)
        #expect(h.keeper.receive(1, .take, now: start).isEmpty)
        #expect(h.keeper.tick(now: start + .milliseconds(1_999)).isEmpty)
        #expect(h.keeper.tick(now: start + ShellKeeperCore.endingWait) == [.send(1, .ended(status: 9)), .close(1)])
        #expect(h.keeper.nextDeadline == nil)
        #expect(h.typed.isEmpty)
    }
}
