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
}
