import Foundation

/// Where an `ActivityCenter` reads the time and waits for it.
///
/// The protocol rules themselves (`HandoffCore`) take the time as an input and never read a
/// clock; only the center that runs them does, through this. Production uses `SystemClock`;
/// tests use `ManualClock` from `HandoffTesting` and move time on by hand.
public protocol HandoffClock: Sendable {
    /// The current time (wall-clock: it stamps `savedAt` and `sentAt`).
    var now: Date { get }
    /// Returns once `now` has reached `deadline` (at once when it already has); throws
    /// `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
    /// Runs `body` on the main actor once `now` has reached `deadline`. Unlike a task that
    /// sleeps, it may arm a timer without waking the main actor first: the receiving side asks
    /// for it from a network thread, once a frame.
    func onMainActor(at deadline: Date, _ body: @escaping @MainActor @Sendable () -> Void)
}

extension HandoffClock {
    /// A task on the main actor that sleeps until `deadline`.
    public func onMainActor(at deadline: Date, _ body: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in
            try? await sleep(until: deadline)
            body()
        }
    }
}

/// The machine's clock.
public struct SystemClock: HandoffClock {
    public init() {}

    public var now: Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let wait = deadline.timeIntervalSinceNow
        guard wait > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(for: .seconds(wait))
    }

    /// A timer on the main queue, which is the main actor's: nothing runs before it fires.
    public func onMainActor(at deadline: Date, _ body: @escaping @MainActor @Sendable () -> Void) {
        let wait = max(0, deadline.timeIntervalSinceNow)
        DispatchQueue.main.asyncAfter(deadline: .now() + wait) { MainActor.assumeIsolated { body() } }
    }
}
