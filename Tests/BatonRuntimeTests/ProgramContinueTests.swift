import BatonApp
import Foundation
import Handoff
import HandoffTesting
import TerminalUI
import Testing
@testable import BatonRuntime

/// A continue that takes a while, through the whole Program: the fetch runs in a task the
/// Program keeps, its progress reaches the screen, Esc cancels it, a failure is shown.
@MainActor
@Suite("A slow continue")
struct ProgramContinueTests {
    static let mib = 1024 * 1024

    /// Alice edits big.log; Bob, at a count of 3, has chosen it from his nearby list and
    /// `fetch` is fetching it.
    static func bobContinuing(_ fetch: SlowFetch) async throws -> (alice: TestPeer, bob: TestPeer) {
        let network = InMemoryNetwork()
        let alice = TestPeer.start(
            TestPeer.center(network, "alice@a"), session: .editor(EditorState(text: "", filePath: nil, fileName: "big.log")))
        alice.backend.send(text: "log")
        #expect(await waitUntil { alice.center.lastPublished?.userInfo["text"] == "log" })
        let bob = TestPeer.start(TestPeer.center(network, "bob@b"), session: .counter(CounterState(count: 3)))
        #expect(await waitUntil { bob.program.model.nearby.contains { $0.title == "Editing big.log" } })
        bob.program.fetch = fetch.run
        bob.backend.send(.control("n"))
        try await bob.backend.waitForScreen(containing: "Nearby (1)", timeout: .seconds(60))
        bob.backend.send(.enter)
        #expect(await waitUntil { fetch.started })
        return (alice, bob)
    }

    @Test("The overlay shows once 200 ms have passed, then the progress; Esc cancels the fetch, the session stays")
    func escCancels() async throws {
        let fetch = SlowFetch()
        let (alice, bob) = try await Self.bobContinuing(fetch)
        let before = try #require(bob.program.activity)
        // No report yet: the Program's waiter still brings the overlay up.
        try await bob.backend.waitForScreen(containing: "Connecting…", timeout: .seconds(60))
        fetch.report(received: 4 * Self.mib, total: 16 * Self.mib, after: .milliseconds(400))
        try await bob.backend.waitForScreen(containing: "4 MB of 16 MB · 10 MB/s", timeout: .seconds(60))
        #expect(bob.backend.lines.contains { $0.contains("from alice@a") })
        #expect(bob.backend.lines.contains { $0.contains("█████████") && $0.contains("25%") })

        // A key for the counter is dropped while the continue runs; Esc cancels.
        bob.backend.send(.character("+"), .escape)
        try await bob.backend.waitForScreen(containing: "Continue cancelled; nothing was restored", timeout: .seconds(60))
        #expect(await waitUntil { fetch.sawCancellation })
        #expect(await waitUntil { bob.program.continuing == nil })
        #expect(bob.program.model.session == .counter(CounterState(count: 3)))
        #expect(bob.program.model.overlay == nil)
        #expect(bob.program.activity === before && before.isCurrent)
        #expect(!bob.backend.lines.contains { $0.contains("Continuing") || $0.contains("Could not") })
        // The counter has its keys back.
        bob.backend.send(.character("+"))
        #expect(await waitUntil { bob.program.model.session == .counter(CounterState(count: 4)) })
        await alice.stop()
        await bob.stop()
    }

    @Test("A failed fetch takes the overlay away and shows the error's description, once")
    func failure() async throws {
        let fetch = SlowFetch()
        let (alice, bob) = try await Self.bobContinuing(fetch)
        fetch.report(received: Self.mib, total: 16 * Self.mib, after: .milliseconds(300))
        try await bob.backend.waitForScreen(containing: "1 MB of 16 MB", timeout: .seconds(60))
        fetch.fail(.transferFailed(peer: "alice@a", reason: "the connection was reset"))
        try await bob.backend.waitForScreen(containing: "Could not continue: Could not fetch", timeout: .seconds(60))
        #expect(bob.program.model.notice?.text
            == "Could not continue: Could not fetch the activity from alice@a: the connection was reset. Nothing was restored.")
        #expect(bob.program.model.overlay == nil)
        #expect(bob.program.model.session == .counter(CounterState(count: 3)))
        #expect(await waitUntil { bob.program.continuing == nil })
        await alice.stop()
        await bob.stop()
    }

    @Test("Quitting while a continue runs cancels its fetch")
    func quitCancels() async throws {
        let fetch = SlowFetch()
        let (alice, bob) = try await Self.bobContinuing(fetch)
        bob.backend.send(.control("q"))
        await bob.run.value
        #expect(bob.program.model.isQuitting)
        #expect(await waitUntil { fetch.sawCancellation })
        await bob.center.shutdown()
        await alice.stop()
    }
}
