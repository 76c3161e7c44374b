@testable import BatonApp
@testable import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing

/// A program nobody uses gives back the pages of its code, once per quiet spell (`QuietPages`).
@MainActor
@Suite("Pages given back when quiet")
struct QuietPagesTests {
    @Test("The policy: due a pause after the last busy moment, once; busy again, due again")
    func policy() {
        let start = ContinuousClock.now
        var pages = QuietPages()
        #expect(pages.deadline == nil)
        let early = pages.takeDue(at: start + .seconds(100))
        #expect(!early, "due before the program did anything")
        pages.busy(at: start)
        pages.busy(at: start + .seconds(3))
        #expect(pages.deadline == start + .seconds(3) + QuietPages.pause)
        let justBefore = pages.takeDue(at: start + .seconds(3) + QuietPages.pause - .milliseconds(1))
        #expect(!justBefore)
        let atTheDeadline = pages.takeDue(at: start + .seconds(3) + QuietPages.pause)
        #expect(atTheDeadline)
        #expect(pages.deadline == nil)
        let again = pages.takeDue(at: start + .seconds(60))
        #expect(!again, "given back twice in one quiet spell")
        pages.busy(at: start + .seconds(61))
        let afterBusy = pages.takeDue(at: start + .seconds(61) + QuietPages.pause)
        #expect(afterBusy)
    }

    @Test("In virtual time: given back a pause after the start, not while keys come, again a pause after the last key")
    func program() async throws {
        let center = TestPeer.center(InMemoryNetwork(), "alice@a")
        let backend = TestBackend(width: 48, height: 14)
        let clock = ManualClock()
        let program = Program(
            backend: backend, center: center, session: .editor(EditorState(text: "quiet", filePath: nil, fileName: "q.txt")),
            status: StatusInfo(peerName: "alice@a", endpoint: "memory", network: .online), clock: clock)
        var givenBack = 0
        program.giveBackPages = {
            givenBack += 1
            return 4096
        }
        let run = Task { @MainActor in await program.run() }
        try await backend.waitForScreen(containing: "quiet", timeout: .seconds(60))
        #expect(await waitUntil { clock.sleeperCount > 0 })

        clock.advance(by: QuietPages.pause - .milliseconds(1))
        #expect(givenBack == 0, "given back before the pause after the start")
        clock.advance(by: .milliseconds(1))
        #expect(await waitUntil(timeout: .seconds(60)) { givenBack == 1 })
        clock.advance(by: .seconds(60))
        #expect(givenBack == 1, "given back again with nothing done")

        // Keys 6 s apart: never a pause long enough.
        for (index, letter) in "abc".enumerated() {
            backend.send(text: String(letter))
            try await backend.waitForScreen(containing: String("abc".prefix(index + 1)) + "quiet", timeout: .seconds(60))
            clock.advance(by: .seconds(6))
        }
        #expect(givenBack == 1, "given back while keys came")
        clock.advance(by: QuietPages.pause - .seconds(6))
        #expect(await waitUntil(timeout: .seconds(60)) { givenBack == 2 })
        backend.endInput()
        await run.value
        await center.shutdown()
    }
}
