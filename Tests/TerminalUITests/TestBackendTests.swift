import Testing
import TerminalUI

@Suite("TestBackend")
struct TestBackendTests {
    private func frame(_ rows: [String], width: Int = 10) -> ScreenBuffer {
        var buffer = ScreenBuffer(width: width, height: rows.count)
        for (y, row) in rows.enumerated() { buffer.put(row, x: 0, y: y) }
        return buffer
    }

    @Test("Records the last frame, its cursor and the frame count")
    func records() throws {
        let backend = TestBackend(width: 10, height: 2)
        #expect(backend.frameCount == 0)
        #expect(backend.lines == ["          ", "          "])
        backend.draw(frame(["one", "two"]), cursor: CursorPosition(x: 3, y: 1))
        backend.draw(frame(["三", "four"]), cursor: nil)
        #expect(backend.frameCount == 2)
        #expect(backend.cursor == nil)
        try backend.assertScreen(["三        ", "four      "])
    }

    @Test("waitForScreen resumes when a later draw shows the text")
    func waitsForDraw() async throws {
        let backend = TestBackend(width: 10, height: 1)
        backend.draw(frame(["Count: 0"]), cursor: nil)
        async let seen = backend.waitForScreen(containing: "Count: 3", timeout: .seconds(60))
        let drawer = Task {
            for count in 1...3 {
                backend.draw(frame(["Count: \(count)"]), cursor: nil)
                await Task.yield()
            }
        }
        let found = try await seen
        await drawer.value
        #expect(found.contains("Count: 3"))
        #expect(found.number == 4)
    }

    @Test("A watch notes the first frame with its text, the one shown when it began included, and keeps it after the text has gone")
    func watch() throws {
        let backend = TestBackend(width: 10, height: 1)
        backend.draw(frame(["Saved"]), cursor: nil)
        let shownNow = backend.watch(for: "Saved")
        let later = backend.watch(for: "Moved")
        let never = backend.watch(for: "Never")
        #expect(shownNow.frame?.number == 1)
        #expect(!later.seen)
        backend.draw(frame(["Moved"]), cursor: nil)
        backend.draw(frame(["Moved on"]), cursor: nil)
        backend.draw(frame(["Gone"]), cursor: nil)
        #expect(later.frame?.number == 2, "the first frame that held it")
        #expect(later.seen, "a frame drawn since held it, though the screen shows other text now")
        #expect(!never.seen)
        try backend.assertScreen(["Gone      "])
    }

    @Test("A frame already drawn satisfies a wait at once")
    func alreadyThere() async throws {
        let backend = TestBackend(width: 8, height: 1)
        backend.draw(frame(["ready"], width: 8), cursor: CursorPosition(x: 5, y: 0))
        let found = try await backend.waitUntil(timeout: .milliseconds(1)) { $0.cursor == CursorPosition(x: 5, y: 0) }
        #expect(found.number == 1)
    }

    @Test("A wait that is never satisfied times out with the last screen in the error")
    func timesOut() async throws {
        let backend = TestBackend(width: 5, height: 1)
        backend.draw(frame(["nope"], width: 5), cursor: nil)
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: TestBackendError.self) {
            try await backend.waitForScreen(containing: "yes", timeout: .milliseconds(50))
        }
        #expect(clock.now - start >= .milliseconds(50))
        guard case let .timedOut(what, _, frames, screen)? = error else {
            Issue.record("expected a timeout, got \(String(describing: error))")
            return
        }
        #expect(what.contains("yes"))
        #expect(frames == 1)
        #expect(screen == ["nope "])
        #expect(error?.description.contains("│nope │") == true)
    }

    @Test("Sent keys and text arrive as batches, in order; text maps newline and tab")
    func sendsEvents() async {
        let backend = TestBackend()
        backend.send(.control("s"), .up)
        backend.send(text: "a中\n\t")
        backend.endInput()
        var batches: [[TerminalEvent]] = []
        for await batch in backend.events() { batches.append(batch) }
        #expect(batches == [
            [.key(.control("s")), .key(.up)],
            [.key(.character("a")), .key(.character("中")), .key(.enter), .key(.tab)],
        ])
    }

    @Test("resize(to:) changes the size and sends a resize event")
    func resize() async {
        let backend = TestBackend(width: 80, height: 24)
        backend.resize(to: TerminalSize(width: 20, height: 5))
        #expect(backend.size == TerminalSize(width: 20, height: 5))
        backend.shutdown()
        var events: [TerminalEvent] = []
        for await batch in backend.events() { events += batch }
        #expect(events == [.resize(TerminalSize(width: 20, height: 5))])
    }

    @Test("shutdown is idempotent, finishes the events and ignores later draws")
    func shutdown() async {
        let backend = TestBackend(width: 3, height: 1)
        backend.shutdown()
        backend.shutdown()
        #expect(backend.isShutDown)
        #expect(backend.shutdownCallCount == 2)
        backend.draw(frame(["x"], width: 3), cursor: nil)
        #expect(backend.frameCount == 0)
        var count = 0
        for await _ in backend.events() { count += 1 }
        #expect(count == 0)
    }

    @Test("A cancelled wait ends with a cancellation error")
    func cancelled() async {
        let backend = TestBackend()
        let waiter = Task { try await backend.waitForScreen(containing: "never", timeout: .seconds(60)) }
        waiter.cancel()
        let result = await waiter.result
        #expect(throws: TestBackendError.self) { try result.get() }
    }
}
