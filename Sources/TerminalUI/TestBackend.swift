import FoundationEssentials
import Synchronization

/// An in-memory `TerminalBackend` for tests: keys are injected, frames recorded.
///
/// Typical use: start the program on a `TestBackend`, `send` keys, then
/// `try await waitForScreen(containing:)` and `try assertScreen([...])`. Waiting
/// is driven by `draw`: each drawn frame resumes the waiters it satisfies, and a
/// deadline ends the wait with `TestBackendError.timedOut`.
public final class TestBackend: TerminalBackend, @unchecked Sendable {
    // All mutable state is guarded by `lock`.
    private let lock = StateLock()
    private var currentSize: TerminalSize
    private var last: DrawnFrame?
    private var shutDownCount = 0
    private var waiters: [UInt64: Waiter] = [:]
    /// Watches not yet satisfied (`watch(for:)`).
    private var watches: [ScreenWatch] = []
    private var nextWaiterID: UInt64 = 0
    private let stream: AsyncStream<[TerminalEvent]>
    private let continuation: AsyncStream<[TerminalEvent]>.Continuation

    private struct Waiter {
        let what: String
        let condition: @Sendable (DrawnFrame) -> Bool
        let continuation: CheckedContinuation<DrawnFrame, any Error>
        /// Ends the wait at the deadline; cancelled when the wait ends first.
        var timer: Task<Void, Never>?
    }

    /// A backend of `width` columns by `height` rows.
    public init(width: Int = 80, height: Int = 24) {
        currentSize = TerminalSize(width: width, height: height)
        (stream, continuation) = AsyncStream.makeStream(of: [TerminalEvent].self, bufferingPolicy: .unbounded)
    }

    /// A backend of `size`.
    public convenience init(size: TerminalSize) {
        self.init(width: size.width, height: size.height)
    }

    // MARK: TerminalBackend

    /// The size set at creation or by `resize(to:)`.
    public var size: TerminalSize {
        lock.withLock { currentSize }
    }

    /// Records `frame` and resumes the waiters it satisfies; ignored after `shutdown()`.
    public func draw(_ frame: ScreenBuffer, cursor: CursorPosition?) {
        let satisfied: [(CheckedContinuation<DrawnFrame, any Error>, DrawnFrame)] = lock.withLock {
            guard shutDownCount == 0 else { return [] }
            let drawn = DrawnFrame(buffer: frame, cursor: cursor, number: (last?.number ?? 0) + 1)
            last = drawn
            for watch in watches { watch.note(drawn) }
            watches.removeAll { $0.seen }
            var ready: [(CheckedContinuation<DrawnFrame, any Error>, DrawnFrame)] = []
            for (id, waiter) in waiters where waiter.condition(drawn) {
                waiters[id] = nil
                waiter.timer?.cancel()
                ready.append((waiter.continuation, drawn))
            }
            return ready
        }
        for (continuation, frame) in satisfied {
            continuation.resume(returning: frame)
        }
    }

    /// From now on (the frame shown now included), notes whether a frame contains `text`: for a
    /// transient line, watched before what shows it is set going and checked at leisure.
    public func watch(for text: String) -> ScreenWatch {
        let watch = ScreenWatch(text: text)
        lock.withLock {
            if let last { watch.note(last) }
            if !watch.seen { watches.append(watch) }
        }
        return watch
    }

    /// The one event stream; events sent before it is iterated are buffered.
    public func events() -> AsyncStream<[TerminalEvent]> {
        stream
    }

    /// Marks the backend shut down and finishes the event stream; idempotent.
    public func shutdown() {
        let first = lock.withLock {
            shutDownCount += 1
            return shutDownCount == 1
        }
        if first { continuation.finish() }
    }

    // MARK: Driving input

    /// Changes the size and sends a `.resize` event.
    public func resize(to size: TerminalSize) {
        lock.withLock { currentSize = size }
        send(events: [.resize(size)])
    }

    /// Sends `keys` as one batch.
    public func send(_ keys: Key...) {
        send(keys: keys)
    }

    /// Sends `keys` as one batch.
    public func send(keys: [Key]) {
        send(events: keys.map { .key($0) })
    }

    /// Sends `text` as one batch of keys: newline or return → `.enter`, tab →
    /// `.tab`, every other character → `.character`.
    public func send(text: String) {
        send(keys: text.map { character -> Key in
            switch character {
            case "\n", "\r", "\r\n": return .enter
            case "\t": return .tab
            default: return .character(character)
            }
        })
    }

    /// Sends `text` as one bracketed paste (one `.paste` event), in a batch of its own.
    public func send(paste text: String) {
        send(events: [.paste(text)])
    }

    /// Sends one batch of events as they are.
    public func send(events: [TerminalEvent]) {
        guard !events.isEmpty else { return }
        continuation.yield(events)
    }

    /// Ends input, as when the terminal closes: the event stream finishes.
    public func endInput() {
        continuation.finish()
    }

    // MARK: What was drawn

    /// The last frame drawn, or nil before the first.
    public var lastFrame: DrawnFrame? {
        lock.withLock { last }
    }

    /// The last frame's rows, or blank rows of the current size before the first draw.
    public var lines: [String] {
        lock.withLock { last?.lines ?? ScreenBuffer(size: currentSize).lines() }
    }

    /// The cursor of the last frame; nil when hidden or nothing was drawn.
    public var cursor: CursorPosition? {
        lock.withLock { last?.cursor }
    }

    /// How many frames were drawn.
    public var frameCount: Int {
        lock.withLock { last?.number ?? 0 }
    }

    /// Whether `shutdown()` was called.
    public var isShutDown: Bool {
        lock.withLock { shutDownCount > 0 }
    }

    /// How many times `shutdown()` was called (to check a program calls it exactly once, or at least once).
    public var shutdownCallCount: Int {
        lock.withLock { shutDownCount }
    }

    // MARK: Waiting

    /// Waits until a drawn frame satisfies `condition` and returns it; the last
    /// frame already drawn counts. Throws `TestBackendError.timedOut` at the
    /// deadline, with the last screen in its description. The default deadline is 30 s: a unit
    /// run starts every test at once, and on two cores a frame can take seconds to come.
    @discardableResult
    public func waitUntil(
        _ description: String = "a frame matching the condition",
        timeout: Duration = .seconds(30),
        condition: @escaping @Sendable (DrawnFrame) -> Bool
    ) async throws -> DrawnFrame {
        let id: UInt64 = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DrawnFrame, any Error>) in
                let ready: DrawnFrame? = lock.withLock {
                    if let last, condition(last) { return last }
                    waiters[id] = Waiter(what: description, condition: condition, continuation: continuation)
                    return nil
                }
                if let ready {
                    continuation.resume(returning: ready)
                    return
                }
                // The cancellation handler may have run before the waiter existed.
                if Task.isCancelled {
                    cancel(id)
                    return
                }
                let timer = Task { [weak self] in
                    do {
                        try await Task.sleep(for: timeout)
                    } catch {
                        return  // the wait ended first
                    }
                    self?.expire(id, timeout: timeout)
                }
                let stillWaiting = lock.withLock { () -> Bool in
                    guard waiters[id] != nil else { return false }
                    waiters[id]?.timer = timer
                    return true
                }
                if !stillWaiting { timer.cancel() }
            }
        } onCancel: {
            self.cancel(id)
        }
    }

    /// Waits until some row of a drawn frame contains `text`.
    @discardableResult
    public func waitForScreen(containing text: String, timeout: Duration = .seconds(30)) async throws -> DrawnFrame {
        try await waitUntil("a screen containing \"\(text)\"", timeout: timeout) { $0.contains(text) }
    }

    /// Waits until a frame with a number above `count` is drawn (a frame after the ones seen so far).
    @discardableResult
    public func waitForFrame(after count: Int, timeout: Duration = .seconds(30)) async throws -> DrawnFrame {
        try await waitUntil("frame number \(count + 1)", timeout: timeout) { $0.number > count }
    }

    /// Throws a `ScreenMismatch` unless the last drawn screen is exactly `expected`.
    public func assertScreen(_ expected: [String]) throws(ScreenMismatch) {
        if let mismatch = ScreenMismatch.compare(actual: lines, expected: expected) {
            throw mismatch
        }
    }

    private func expire(_ id: UInt64, timeout: Duration) {
        let expired: (Waiter, Int, [String])? = lock.withLock {
            guard let waiter = waiters.removeValue(forKey: id) else { return nil }
            return (waiter, last?.number ?? 0, last?.lines ?? [])
        }
        if let (waiter, frames, screen) = expired {
            waiter.continuation.resume(throwing: TestBackendError.timedOut(
                waitingFor: waiter.what, timeout: timeout, framesDrawn: frames, lastScreen: screen))
        }
    }

    private func cancel(_ id: UInt64) {
        guard let waiter = lock.withLock({ waiters.removeValue(forKey: id) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(throwing: TestBackendError.cancelled(waitingFor: waiter.what))
    }
}

/// A lock with NSLock's `withLock`, over the standard library's `Mutex`.
private final class StateLock: Sendable {
    private let mutex = Mutex(())

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        try mutex.withLock { _ in try body() }
    }
}
