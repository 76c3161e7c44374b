import Handoff
import Testing
@testable import BatonApp

/// `baton --continue-activity` before the first byte of a large record: the progress line says
/// it is connecting, as the in-app overlay does, instead of leaving the terminal blank.
@Suite("The progress line while connecting")
struct ProgressLineConnectingTests {
    static let size = 2_306_867  // 2.2 MB

    @Test("Connecting says the size, the source and that Esc cancels; narrower, the hint goes first, then the source")
    func connectingText() {
        #expect(TransferText.connecting(total: Self.size) == "Connecting… · 0 bytes of 2.2 MB")
        #expect(TransferText.connecting(total: nil) == "Connecting…")
        let full = "Connecting… · 0 bytes of 2.2 MB · from alice@laptop · Esc cancels"
        #expect(TransferText.connectingLine(total: Self.size, peerName: "alice@laptop", hint: "Esc cancels", width: 79) == full)
        #expect(TransferText.connectingLine(total: Self.size, peerName: "alice@laptop", hint: "Esc cancels", width: 60)
            == "Connecting… · 0 bytes of 2.2 MB · from alice@laptop")
        #expect(TransferText.connectingLine(total: Self.size, peerName: "alice@laptop", hint: "Esc cancels", width: 40)
            == "Connecting… · 0 bytes of 2.2 MB")
        #expect(TransferText.connectingLine(total: Self.size, peerName: "alice@laptop", width: 20).count <= 20)
        #expect(TransferText.connectingLine(total: Self.size, peerName: "eve\u{1b}[2J", width: 79).contains("from eve␛[2J"))
    }

    @Test("The progress overlay says the same before its first report")
    func sameAsOverlay() {
        let state = ContinueState(id: "a", title: "Editing big.log", peerName: "alice@laptop", stateSize: Self.size)
        let lines = ContinuePanel.lines(state, width: 48, room: 10).map(\.text)
        #expect(lines.contains(TransferText.connecting(total: Self.size)))
        #expect(lines.contains("Esc cancels"))
    }

    @Test("On a terminal: a fetch without a byte after 200 ms shows the connecting line once; the first report replaces it")
    func waitingThenProgress() {
        var line = ProgressLine(isTerminal: true, width: 80, hint: "Esc cancels")
        #expect(line.waiting(elapsed: .milliseconds(150), total: Self.size, peerName: "alice@laptop") == nil)
        let connecting = line.waiting(elapsed: .milliseconds(200), total: Self.size, peerName: "alice@laptop")
        #expect(connecting == "\rConnecting… · 0 bytes of 2.2 MB · from alice@laptop · Esc cancels")
        #expect(line.isDrawn)
        #expect(line.waiting(elapsed: .seconds(5), total: Self.size, peerName: "alice@laptop") == nil, "drawn once")
        // The first report, however soon after, replaces it, blanking what the longer line left.
        let report = TransferProgress(
            activityID: "a", peerName: "alice@laptop", received: (Self.size + 1) / 2, total: Self.size, elapsed: .milliseconds(5_050))
        let first = line.update(report)
        #expect(first?.hasPrefix("\r█") == true, "\(first ?? "nil")")
        #expect(first?.contains("50% · 1.1 MB of 2.2 MB") == true, "\(first ?? "nil")")
        #expect(first?.contains("Esc cancels") == true)
        // Failing after that clears the line, so the error starts on a clean one.
        #expect(line.finish(succeeded: false) == "\r" + String(repeating: " ", count: 79) + "\r")
    }

    @Test("A connecting line that never got a report is cleared at the end, on a terminal only")
    func clearedAfterFailure() {
        var line = ProgressLine(isTerminal: true, width: 60)
        let text = line.waiting(elapsed: .seconds(13), total: Self.size, peerName: "alice@laptop")
        #expect(text == "\rConnecting… · 0 bytes of 2.2 MB · from alice@laptop")
        #expect(line.finish(succeeded: false) == "\r" + String(repeating: " ", count: 59) + "\r")

        var plain = ProgressLine(isTerminal: false, width: 80)
        #expect(plain.waiting(elapsed: .seconds(13), total: Self.size, peerName: "alice@laptop") == nil)
        #expect(plain.finish(succeeded: false) == nil)
    }
}
