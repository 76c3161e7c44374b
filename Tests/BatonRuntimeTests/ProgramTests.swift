import BatonCommands
import BatonApp
import BatonRuntime
import Foundation
import Handoff
import HandoffStore
import HandoffTesting
import TerminalUI
import Testing

/// Two whole programs — update, view, Program, ActivityCenter — over the in-memory transport.
@MainActor
@Suite("Two programs over the in-memory transport")
struct ProgramTests {
    /// How long a condition may take. Alone each test here passes in about a second, but the
    /// unit run starts some 800 tests at once on this two-core machine, and these two programs
    /// share the main actor with every one of them: a CI run saw a key's publish wait 20 s.
    static let patience: Duration = .seconds(60)

    func center(_ network: InMemoryNetwork, _ name: String) -> ActivityCenter {
        TestPeer.center(network, name)
    }

    func start(_ center: ActivityCenter, session: Session, opening: [AppMessage] = []) -> TestPeer {
        TestPeer.start(center, session: session, opening: opening)
    }

    func stop(_ peers: TestPeer...) async {
        for peer in peers { await peer.stop() }
    }

    @Test("A counts to 5; B continues and shows the same count; A shows “Continued on”")
    func counter() async throws {
        let network = InMemoryNetwork()
        let a = start(center(network, "alice@a"), session: .counter(CounterState(count: 0)))
        try await a.backend.waitUntil(timeout: Self.patience) { $0.lines.contains { $0.contains("Counter") } }
        a.backend.send(text: "+++++")
        #expect(await waitUntil(timeout: Self.patience) { a.program.activity?.revision ?? 0 >= 1 && a.center.lastPublished?.userInfo["count"] == 5 })

        let bCenter = center(network, "bob@b")
        // A's notice shows for 4 s: watched from before the continue (see ProgramLoopTests).
        let continuedOnA = a.backend.watch(for: "Continued on bob@b")
        let activity = try await bCenter.continueActivity(type: "dev.baton.counter", timeout: Self.patience)
        let session = try #require(Session(activityType: activity.activityType, userInfo: activity.userInfo, from: "alice@a"))
        #expect(session == .counter(CounterState(count: 5)))
        let b = start(bCenter, session: session, opening: [.continued(session, from: "alice@a")])

        // B's own notice is looked for first: it shows from B's start, for 4 s, and A's is watched.
        try await b.backend.waitForScreen(containing: "Continued from alice@a", timeout: Self.patience)
        #expect(await waitUntil(timeout: Self.patience) { continuedOnA.seen })
        // The count — the big digits in the middle of the screen — is drawn the same on both.
        let body = 0..<(a.backend.lines.count - 3)
        #expect(Array(b.backend.lines[body]) == Array(a.backend.lines[body]))
        #expect(a.backend.lines[body].contains { $0.contains("█") })
        await stop(a, b)
    }

    @Test("Ctrl-K on A, then Ctrl-U on B: the cut lines are pasted exactly, through the key-value store")
    func clipboardAcrossPrograms() async throws {
        let network = InMemoryNetwork()
        let aCenter = center(network, "alice@a")
        let bCenter = center(network, "bob@b")
        let aSync = StoreSync(center: aCenter, folder: nil)
        let bSync = StoreSync(center: bCenter, folder: nil)
        aSync.start()
        bSync.start()
        let a = TestPeer.start(
            aCenter, session: .editor(EditorState(text: "keep\nmé 👋\ntail", filePath: nil, fileName: "a.txt")),
            clipboard: try aSync.store(named: "baton"))
        let bStore = try bSync.store(named: "baton")
        let b = TestPeer.start(bCenter, session: .editor(EditorState(text: "", filePath: nil, fileName: "b.txt")), clipboard: bStore)
        try await a.backend.waitForScreen(containing: "tail", timeout: Self.patience)
        a.backend.send(.down)
        a.backend.send(.control("k"), .control("k"))
        #expect(await waitUntil(timeout: Self.patience) { b.program.model.clipboard == .lines(["mé 👋", "tail"]) })
        b.backend.send(.control("u"))
        #expect(await waitUntil(timeout: Self.patience) {
            guard case .editor(let state) = b.program.model.session else { return false }
            return state.buffer.text == "mé 👋\ntail\n"
        })
        #expect(bStore.array(forKey: StoreClipboard.key) == ["mé 👋", "tail"])
        // A selection goes as its text: Shift-Right twice from the start of "mé 👋", Ctrl-K.
        a.backend.send(.control("z"), .modified(.right, .shift), .modified(.right, .shift), .control("k"))
        #expect(await waitUntil(timeout: Self.patience) { b.program.model.clipboard == .text("mé") })
        #expect(bStore.string(forKey: StoreClipboard.key) == "mé")
        aSync.stop()
        bSync.stop()
        await stop(a, b)
    }

    @Test("A types a paragraph; B continues it from its nearby list with the same text and cursor")
    func editing() async throws {
        let network = InMemoryNetwork()
        let a = start(center(network, "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "notes.txt")))
        a.backend.send(text: "héllo 你好 👋")
        a.backend.send(.enter)
        a.backend.send(text: "wörld")
        a.backend.send(.left, .left)
        // Column 3 is also where the cursor stood after typing "wör": wait for the text too.
        #expect(
            await waitUntil(timeout: Self.patience) {
                a.center.lastPublished?.userInfo["text"] == "héllo 你好 👋\nwörld"
                    && a.center.lastPublished?.userInfo["cursorColumn"] == 3
            },
            """
            published: \(String(describing: a.center.lastPublished?.userInfo["text"])) \
            column \(String(describing: a.center.lastPublished?.userInfo["cursorColumn"])), \
            revision \(a.center.lastPublished?.revision ?? 0); model: \(String(describing: a.program.model.session.editorState?.buffer.text)) \
            at \(String(describing: a.program.model.session.editorState?.buffer.cursor)); saves \(a.center.saveCount)
            """)

        // B starts with a counter, opens Nearby, and continues the editing session from there.
        let b = start(center(network, "bob@b"), session: .counter(CounterState(count: 0)))
        try await b.backend.waitForScreen(containing: "Ctrl-N", timeout: Self.patience)
        b.backend.send(.control("n"))
        try await b.backend.waitForScreen(containing: "notes.txt", timeout: Self.patience)
        // A's notice shows for 4 s: watched from before the continue (see ProgramLoopTests).
        let continuedOnA = a.backend.watch(for: "Continued on bob@b")
        b.backend.send(.enter)
        try await b.backend.waitForScreen(containing: "wörld", timeout: Self.patience)

        guard case .editor(let restored) = b.program.model.session else {
            Issue.record("B shows \(b.program.model.session)")
            return
        }
        #expect(restored.buffer.text == "héllo 你好 👋\nwörld")
        #expect(restored.buffer.cursor == TextPosition(line: 1, column: 3))
        #expect(restored.filePath == nil, "a continued edit is never tied to a path from the peer")
        // Same text rows, same cursor place on screen (the title lines differ: B's says where it came from).
        let textRows = 1..<3
        #expect(Array(b.backend.lines[textRows]) == Array(a.backend.lines[textRows]))
        #expect(b.backend.cursor == a.backend.cursor)
        #expect(await waitUntil(timeout: Self.patience) { continuedOnA.seen })
        await stop(a, b)
    }
}
