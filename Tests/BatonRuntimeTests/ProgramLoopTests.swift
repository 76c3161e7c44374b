import BatonApp
import BatonRuntime
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing

/// The Program as Bubble Tea's loop: the model changes only in update; continuing and
/// closing the input come back as messages.
@MainActor
@Suite("The Program's loop")
struct ProgramLoopTests {
    @Test("Restoring a continued activity only posts the session: the model and the activity change after update")
    func restoreIsAMessage() async throws {
        let center = TestPeer.center(InMemoryNetwork(), "bob@b")
        let b = TestPeer.start(center, session: .counter(CounterState(count: 1)))
        #expect(await waitUntil { b.program.activity?.isCurrent == true && b.backend.lines.contains { $0.contains("Counter") } })
        let first = try #require(b.program.activity)

        // The notice shows for 4 s: watched from now, since a loaded run can resume this test
        // later than that (a full run beside a busy loop found it gone from the model).
        let continued = b.backend.watch(for: "Continued from a peer — Ctrl-S asks for a name")
        // The center calls this inside `continueActivity`, i.e. while a command is performed.
        let carried = UserActivity(activityType: Session.editingActivityType, center: center)
        carried.userInfo = ["text": "from afar", "cursorLine": 0, "cursorColumn": 4]
        b.program.restoreUserActivityState(carried)
        #expect(b.program.model.session == .counter(CounterState(count: 1)), "restoring ran update inside the call")
        #expect(b.program.activity === first, "restoring restarted the activity inside the call")

        // The loop handles `.continued`; its `.startActivity` then replaces the activity.
        #expect(await waitUntil { b.program.model.session.activityType == Session.editingActivityType })
        guard case .editor(let editor) = b.program.model.session else { return }
        #expect(editor.buffer.text == "from afar")
        #expect(editor.buffer.cursor == TextPosition(line: 0, column: 4))
        #expect(await waitUntil { continued.seen })
        #expect(b.program.activity !== first)
        #expect(b.program.activity?.activityType == Session.editingActivityType)
        #expect(b.program.activity?.isCurrent == true)
        #expect(first.isInvalidated)
        await b.stop()
    }

    @Test("Choosing a nearby activity continues it as a command; the session arrives afterwards, as a message")
    func continueIsACommand() async throws {
        let network = InMemoryNetwork()
        let a = TestPeer.start(
            TestPeer.center(network, "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "notes.txt")))
        a.backend.send(text: "hi")
        #expect(await waitUntil { a.center.lastPublished?.userInfo["text"] == "hi" })
        let b = TestPeer.start(TestPeer.center(network, "bob@b"), session: .counter(CounterState(count: 0)))
        #expect(await waitUntil { b.program.model.nearby.contains { $0.title == "Editing notes.txt" } })
        let before = try #require(b.program.activity)

        // The notices on both sides show for 4 s: watched from before the continue, since a wait
        // begun after B's session arrives can come too late on a loaded machine (a CI run waited
        // 60 s on A's screen after it had gone).
        let continuedOnA = a.backend.watch(for: "Continued on bob@b")
        let continuedFromA = b.backend.watch(for: "Continued from alice@a — Ctrl-S")

        // Ctrl-N opens the list on the newest item; Enter chooses it, and the Program performs
        // `.continueActivity` by starting the continue in a task; restoring then posts `.continued`.
        b.program.handle(.key(.control("n")))
        b.program.handle(.key(.enter))
        #expect(b.program.model.session == .counter(CounterState(count: 0)))
        #expect(b.program.model.notice?.text == "Continuing Editing notes.txt from alice@a…")
        #expect(b.program.activity === before)

        #expect(await waitUntil { b.program.model.session.activityType == Session.editingActivityType })
        guard case .editor(let editor) = b.program.model.session else { return }
        #expect(editor.buffer.text == "hi")
        #expect(editor.continuedFrom == "alice@a")
        #expect(b.program.activity !== before && before.isInvalidated)
        #expect(await waitUntil { continuedFromA.seen && continuedOnA.seen })
        await a.stop()
        await b.stop()
    }

    @Test("A notice after a quiet spell (no ticks) counts from now: the next tick does not take it away")
    func noticeAfterQuiet() async throws {
        let b = TestPeer.start(TestPeer.center(InMemoryNetwork(), "bob@b"), session: .counter(CounterState(count: 0)))
        try await b.backend.waitForScreen(containing: "Counter", timeout: .seconds(60))
        // The model's clock as it stands after 20 quiet seconds: nothing ages on screen, so no ticks came.
        b.program.handle(.tick(Date(timeIntervalSinceNow: -20)))
        b.program.handle(.continueFailed("the source went away"))
        b.program.handle(.tick(Date()))
        #expect(b.program.model.visibleNotice?.text == "Could not continue: the source went away")
        await b.stop()
    }

    @Test("A continue of an activity no longer nearby comes back as .continueFailed")
    func continueGone() async throws {
        let b = TestPeer.start(TestPeer.center(InMemoryNetwork(), "bob@b"), session: .counter(CounterState(count: 0)))
        try await b.backend.waitForScreen(containing: "Counter", timeout: .seconds(60))
        // An item the model shows but the center has forgotten.
        b.program.handle(.nearbyChanged([NearbyItem(
            id: "gone", activityType: Session.counterActivityType, title: "Counter: 9", peerName: "carol@c",
            savedAt: Date(), lastHeard: Date())]))
        // The problem shows for 8 s: watched from before the continue, since a loaded run can
        // resume this test later than that (a full run beside a busy loop waited 60 s after it).
        // (The 48-column screen cuts it after "no longer".)
        let failed = b.backend.watch(for: "Could not continue: That activity is no longer")
        b.program.handle(.key(.control("n")))
        b.program.handle(.key(.enter))
        #expect(b.program.model.notice?.kind != .problem, "the failure is a message still in the inbox")
        #expect(await waitUntil { failed.seen })
        #expect(b.program.model.session == .counter(CounterState(count: 0)))
        await b.stop()
    }

    @Test("Input closing quits through update, and the log says what stayed unsaved")
    func inputClosed() async throws {
        let recorder = LogRecorder()
        let p = TestPeer.start(
            TestPeer.center(InMemoryNetwork(), "alice@a"),
            session: .editor(EditorState(text: "", filePath: nil, fileName: "draft.txt")), logger: recorder.logger)
        p.backend.send(text: "x")
        #expect(await waitUntil {
            if case .editor(let editor) = p.program.model.session { editor.isDirty } else { false }
        })
        p.backend.endInput()
        await p.run.value
        #expect(p.program.model.isQuitting)
        #expect(p.program.model.overlay == nil)
        #expect(recorder.messages.contains("info: input closed"))
        #expect(recorder.messages.contains("warning: quit with unsaved changes in draft.txt"))
        await p.center.shutdown()
    }

    @Test("A clean quit logs nothing about unsaved changes")
    func cleanQuit() async throws {
        let recorder = LogRecorder()
        let p = TestPeer.start(
            TestPeer.center(InMemoryNetwork(), "alice@a"), session: .counter(CounterState(count: 2)), logger: recorder.logger)
        try await p.backend.waitForScreen(containing: "Counter", timeout: .seconds(60))
        p.backend.send(.character("q"))
        await p.run.value
        #expect(p.program.model.isQuitting)
        #expect(!recorder.messages.contains { $0.contains("unsaved") })
        #expect(!recorder.messages.contains("info: input closed"), "q quit before the input closed")
        await p.center.shutdown()
    }
}
