import Handoff
import Testing
@testable import BatonApp

/// `baton --continue-activity` while a link is down: the progress line stops showing a rate
/// that no longer moves and says how long it has been waiting. Times are given, not waited for.
@Suite("The progress line while no byte comes")
struct ProgressLineQuietTests {
    static let size = 16 << 20

    static func report(_ received: Int, at milliseconds: Int) -> TransferProgress {
        TransferProgress(activityID: "a", peerName: "alice@laptop", received: received, total: size, elapsed: .milliseconds(milliseconds))
    }

    @Test("No report for 2 s: the rate gives way to \"waiting N s\", redrawn once a second; the next report brings the rate back")
    func waitingThenRate() {
        var line = ProgressLine(isTerminal: true, width: 100, hint: "Esc cancels")
        let drawn = line.update(Self.report(8 << 20, at: 1_000))
        #expect(drawn?.contains("8 MB/s") == true, "\(drawn ?? "nil")")
        #expect(line.quiet(elapsed: .milliseconds(2_900)) == nil, "1.9 s without a byte is not yet quiet")
        let waiting = line.quiet(elapsed: .milliseconds(3_000))
        #expect(waiting?.contains("50% · 8 MB of 16 MB · waiting 2 s · from alice@laptop · Esc cancels") == true, "\(waiting ?? "nil")")
        #expect(waiting?.contains("MB/s") == false)
        #expect(line.quiet(elapsed: .milliseconds(3_500)) == nil, "the same second is drawn once")
        #expect(line.quiet(elapsed: .milliseconds(4_000))?.contains("waiting 3 s") == true)
        let back = line.update(Self.report(9 << 20, at: 4_100))
        #expect(back?.contains("MB/s") == true, "\(back ?? "nil")")
        #expect(back?.contains("waiting") == false)
        #expect(line.quiet(elapsed: .milliseconds(5_000)) == nil)
    }

    @Test("Nothing is said when no line is drawn, when it is not a terminal, or when everything arrived")
    func quietOnlyOnADrawnLine() {
        var early = ProgressLine(isTerminal: true, width: 100)
        _ = early.update(Self.report(1_000, at: 100))  // before the line is due: not drawn
        #expect(early.quiet(elapsed: .seconds(10)) == nil)
        var plain = ProgressLine(isTerminal: false, width: 100)
        _ = plain.update(Self.report(8 << 20, at: 1_000))
        #expect(plain.quiet(elapsed: .seconds(10)) == nil)
        var done = ProgressLine(isTerminal: true, width: 100)
        _ = done.update(Self.report(Self.size, at: 1_000))
        #expect(done.quiet(elapsed: .seconds(10)) == nil)
    }

    @Test("Narrow, the waiting outlasts the hint and the resumes; the line fits")
    func narrowWaiting() {
        var progress = Self.report(8 << 20, at: 1_000)
        progress.resumes = 2
        let text = TransferText.line(progress, width: 64, hint: "Esc cancels", quiet: .seconds(7))
        #expect(text.contains("waiting 7 s"), "\(text)")
        #expect(!text.contains("Esc cancels") && !text.contains("resumed"))
        #expect(text.count <= 64)
    }
}
