import Handoff
import Testing
@testable import BatonApp

/// The words and bar of a fetch, and the progress line `baton --continue-activity` redraws on stderr.
@Suite("Transfer text and the progress line")
struct TransferTextTests {
    static let mib = 1024 * 1024

    static func progress(_ received: Int, of total: Int, after milliseconds: Int, resumes: Int = 0) -> TransferProgress {
        TransferProgress(
            activityID: "a", peerName: "alice@laptop", received: received, total: total,
            elapsed: .milliseconds(milliseconds), resumes: resumes)
    }

    @Test("The bar fills in proportion, rounded down, and is never wider than asked")
    func bar() {
        #expect(TransferText.bar(0, width: 10) == "░░░░░░░░░░")
        #expect(TransferText.bar(0.5, width: 10) == "█████░░░░░")
        #expect(TransferText.bar(0.99, width: 10) == "█████████░")
        #expect(TransferText.bar(1, width: 10) == "██████████")
        #expect(TransferText.bar(7, width: 4) == "████")
        #expect(TransferText.bar(-1, width: 4) == "░░░░")
        #expect(TransferText.bar(.nan, width: 4) == "░░░░")
        #expect(TransferText.bar(0.5, width: 0) == "")
        #expect(TransferText.percent(0.999) == "99%")
        #expect(TransferText.percent(1) == "100%")
    }

    @Test("Amounts, rate and source read as people say them")
    func words() {
        #expect(TransferText.amounts(received: 1_258_291, total: 16 * Self.mib) == "1.2 MB of 16 MB")
        #expect(TransferText.amounts(received: 512, total: 40 * 1024) == "512 bytes of 40 KB")
        #expect(TransferText.rate(35 * Double(Self.mib)) == "35 MB/s")
        #expect(TransferText.rate(0) == nil)
        #expect(TransferText.rate(.infinity) == nil)
        #expect(TransferText.source("alice@laptop") == "from alice@laptop")
        #expect(TransferText.source("eve\u{1b}[31m@lan") == "from eve␛[31m@lan")
        #expect(TransferText.source(String(repeating: "x", count: 50)) == "from " + String(repeating: "x", count: 31) + "…")
        #expect(TransferText.resumes(0) == nil)
        #expect(TransferText.resumes(2) == "resumed 2×")
    }

    @Test("The line: bar, percent, amounts, rate and source; narrower, the bar shrinks, then parts go")
    func line() {
        let p = Self.progress(1_258_291, of: 16 * Self.mib, after: 1000)
        let full = TransferText.line(p, width: 100)
        #expect(full == "█░░░░░░░░░░░░░░░░░░░   7% · 1.2 MB of 16 MB · 1.2 MB/s · from alice@laptop")
        #expect(TransferText.line(p, width: 67) == "░░░░░░░░░░░░░   7% · 1.2 MB of 16 MB · 1.2 MB/s · from alice@laptop")
        #expect(TransferText.line(p, width: 60) == "█░░░░░░░░░░░░░░░░   7% · 1.2 MB of 16 MB · from alice@laptop")
        #expect(TransferText.line(p, width: 40) == "█░░░░░░░░░░░░░░░░   7% · 1.2 MB of 16 MB")
        #expect(TransferText.line(p, width: 20) == "█░░░░░░░░░░░░░░   7%")
        #expect(TransferText.line(p, width: 10) == "░░░░░░░░ …")
        for width in [1, 10, 30, 45, 79] {
            #expect(TransferText.line(p, width: width).count <= width, "wider than \(width)")
        }
        let resumed = TransferText.line(Self.progress(Self.mib, of: 2 * Self.mib, after: 2000, resumes: 1), width: 100)
        #expect(resumed == "██████████░░░░░░░░░░  50% · 1 MB of 2 MB · 512 KB/s · resumed 1× · from alice@laptop")
    }

    @Test("The summary says what arrived, from whom, how fast")
    func summary() {
        #expect(TransferText.summary(Self.progress(16 * Self.mib, of: 16 * Self.mib, after: 2345))
            == "Fetched 16 MB from alice@laptop in 2.3 s")
        #expect(TransferText.summary(Self.progress(Self.mib, of: 16 * Self.mib, after: 12_400))
            == "Fetched 1 MB of 16 MB from alice@laptop in 12 s")
    }

    @Test("On a terminal: nothing before 200 ms, then one line redrawn in place at most every 100 ms, cleared at the end")
    func terminalLine() {
        var line = ProgressLine(isTerminal: true, width: 40)
        #expect(line.update(Self.progress(100, of: 16 * Self.mib, after: 150)) == nil)
        #expect(!line.isDrawn)
        let first = line.update(Self.progress(Self.mib, of: 16 * Self.mib, after: 250))
        #expect(first == "\r█░░░░░░░░░░░░░░░░░   6% · 1 MB of 16 MB")
        #expect(line.isDrawn)
        #expect(line.update(Self.progress(2 * Self.mib, of: 16 * Self.mib, after: 300)) == nil, "redrawn within 100 ms")
        // A shorter line blanks what the longer one left.
        let second = line.update(Self.progress(2 * Self.mib, of: 16 * Self.mib, after: 350))
        #expect(second == "\r██░░░░░░░░░░░░░░░░  12% · 2 MB of 16 MB")
        let last = line.update(Self.progress(16 * Self.mib, of: 16 * Self.mib, after: 360))
        #expect(last == "\r█████████████████ 100% · 16 MB of 16 MB")
        #expect(line.finish(succeeded: true) == "\r" + String(repeating: " ", count: 39) + "\r")
        #expect(!line.isDrawn)
        #expect(line.finish(succeeded: true) == nil)
    }

    @Test("Lines on a terminal stay off its last column, so they never wrap")
    func neverWraps() {
        var line = ProgressLine(isTerminal: true, width: 30)
        let text = line.update(Self.progress(Self.mib, of: 16 * Self.mib, after: 500)) ?? ""
        #expect(text.dropFirst().count == 29)
    }

    @Test("A fast fetch on a terminal draws nothing and clears nothing")
    func fastFetch() {
        var line = ProgressLine(isTerminal: true, width: 80)
        #expect(line.update(Self.progress(16 * Self.mib, of: 16 * Self.mib, after: 120)) == nil)
        #expect(line.finish(succeeded: true) == nil)
    }

    @Test("Not a terminal: no redraws; a slow success leaves one summary line, a failure or a fast fetch none")
    func notATerminal() {
        var line = ProgressLine(isTerminal: false, width: 80)
        #expect(line.update(Self.progress(Self.mib, of: 16 * Self.mib, after: 900)) == nil)
        #expect(line.update(Self.progress(16 * Self.mib, of: 16 * Self.mib, after: 2000)) == nil)
        #expect(line.finish(succeeded: true) == "Fetched 16 MB from alice@laptop in 2.0 s\n")

        var failed = ProgressLine(isTerminal: false, width: 80)
        _ = failed.update(Self.progress(Self.mib, of: 16 * Self.mib, after: 900))
        #expect(failed.finish(succeeded: false) == nil)

        var fast = ProgressLine(isTerminal: false, width: 80)
        _ = fast.update(Self.progress(Self.mib, of: Self.mib, after: 50))
        #expect(fast.finish(succeeded: true) == nil)
    }
}
