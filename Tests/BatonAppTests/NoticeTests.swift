import Foundation
import Testing
import TerminalUI
@testable import BatonApp

@Suite("Notices, status and publish problems")
struct NoticeTests {
    @Test("Continued elsewhere shows a notice that a tick clears after 4 s")
    func noticeExpires() {
        var model = Fixtures.counter()
        model.send(.continuedElsewhere(peerName: "bob@desk"))
        #expect(model.visibleNotice?.text == "Continued on bob@desk")
        #expect(model.screen[8].hasPrefix("Continued on bob@desk"))
        model.send(.tick(Fixtures.start.addingTimeInterval(3.9)))
        #expect(model.notice != nil)
        model.send(.tick(Fixtures.start.addingTimeInterval(4)))
        #expect(model.notice == nil)
        #expect(model.screen[8].hasPrefix("+/- count"))
    }

    @Test("Problem notices stay 8 s")
    func problemNoticeLasts() {
        var model = Fixtures.counter()
        model.send(.continueFailed("No."))
        model.send(.tick(Fixtures.start.addingTimeInterval(7)))
        #expect(model.notice != nil)
        model.send(.tick(Fixtures.start.addingTimeInterval(8)))
        #expect(model.notice == nil)
    }

    @Test("A publish problem is shown plainly until a publish succeeds")
    func publishProblem() {
        let problem = "The activity record is 71234 bytes encoded, over the 60000-byte limit of one datagram; make its userInfo smaller."
        var model = Fixtures.editor(width: 60, height: 8)
        #expect(model.send(.publishFailed(problem)) == [])
        #expect(model.publishProblem == problem)
        #expect(model.screen[6] == "⚠ Not handed off: The activity record is 71234 bytes encode…")
        #expect(model.screen[7].contains("⚠ not handed off"))
        model.send(.tick(Fixtures.start.addingTimeInterval(60)))
        #expect(model.publishProblem == problem)
        model.send(.published)
        #expect(model.publishProblem == nil)
        #expect(!model.screen.joined().contains("handed off"))
    }

    @Test("Peers heard and network state reach the status bar")
    func status() {
        var model = Fixtures.counter(width: 80, height: 10)
        model.send(.peersHeard(1), .network(.offline("no route to 239.255.77.88")))
        #expect(model.status.peersHeard == 1)
        // The bar says "offline"; the line above it says why.
        #expect(model.screen[9] == " Counter · alice@laptop · 1 peer · 239.255.77.88:47788 on eth0 · offline        ")
        #expect(model.screen[8].hasPrefix("⚠ Offline, not handed off: no route to 239.255.77.88"))
        model.send(.network(.starting))
        #expect(model.screen[9].hasPrefix(" Counter · alice@laptop · 1 peer · 239.255.77.88:47788 on eth0 · starting… "))
    }

    @Test("A machine removed from the group says so in the status bar and the line above, and the transport does not undo it")
    func removed() {
        var model = Fixtures.counter(width: 80, height: 10)
        model.send(.network(.removed("by bob@desk; no machine hears this one.")))
        #expect(model.screen[9].contains("· removed from the group"), "\(model.screen[9])")
        #expect(model.screen[8].hasPrefix("⚠ Removed from the group, not handed off: by bob@desk"), "\(model.screen[8])")
        // A removal is for good: a later transport state leaves it.
        model.send(.network(.online))
        #expect(model.status.network == .removed("by bob@desk; no machine hears this one."))
        #expect(model.screen[9].contains("· removed from the group"))
    }
}
