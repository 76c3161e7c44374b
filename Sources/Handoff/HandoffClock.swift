import FoundationEssentials
import Dispatch

/// Baton's one clock, on Swift's `Clock`: monotonic instants for every deadline and wait, and
/// the wall-clock `date` only for times that travel or are shown (`savedAt`, `sentAt`, a store
/// version's time, an age in the nearby list).
///
/// The engines (`HandoffCore` and the others in its shape) read no clock: the time is one of
/// their inputs. Only their runners read one, through this. Production uses `SystemClock`;
/// tests use `ManualClock` from `HandoffTesting`, which moves only when told, so minutes of
/// protocol time pass in milliseconds.
public protocol HandoffClock: Clock, Sendable where Instant == ContinuousClock.Instant, Duration == Swift.Duration {
    /// The wall-clock time now.
    var date: Date { get }
    /// Runs `body` on the main actor once `now` has reached `deadline`. Unlike a task that
    /// sleeps, it may arm a timer without waking the main actor first: the receiving side asks
    /// for it from a network thread, once a frame.
    func onMainActor(at deadline: Instant, _ body: @escaping @MainActor @Sendable () -> Void)
    /// The instant at which the wall clock will read `date`, as this clock's two readings stand
    /// now: for deadlines that an engine still gives as dates.
    func instant(at date: Date) -> Instant
    /// Returns once the wall clock, as this clock keeps it, reads `date` or later: for deadlines
    /// that an engine still gives as dates (`HandoffCore`'s).
    func sleep(untilDate date: Date) async throws
    /// `onMainActor(at:)` for a deadline given as a date.
    func onMainActor(atDate date: Date, _ body: @escaping @MainActor @Sendable () -> Void)
}

extension HandoffClock {
    /// Returns once `now` has reached `deadline` (at once when it already has); throws
    /// `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant) async throws {
        try await sleep(until: deadline, tolerance: nil)
    }

    /// A task on the main actor that sleeps until `deadline`.
    public func onMainActor(at deadline: Instant, _ body: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in
            try? await sleep(until: deadline, tolerance: nil)
            body()
        }
    }

    /// `instant(at:)` from two readings. Rounded to the microsecond: a `Date` now holds about a
    /// quarter of one, so a deadline 300 ms away is 300 ms away, not 300.0002 ms.
    public func instant(at date: Date) -> Instant {
        Self.instant(at: date, now: now, date: self.date)
    }

    /// The instant at which the wall clock reads `date`, when it read `then` at `now`.
    public static func instant(at date: Date, now: Instant, date then: Date) -> Instant {
        now.advanced(by: .microseconds(Int64((date.timeIntervalSince(then) * 1e6).rounded())))
    }

    /// Through `instant(at:)`.
    public func sleep(untilDate date: Date) async throws {
        try await sleep(until: instant(at: date), tolerance: nil)
    }

    /// Through `instant(at:)`.
    public func onMainActor(atDate date: Date, _ body: @escaping @MainActor @Sendable () -> Void) {
        onMainActor(at: instant(at: date), body)
    }
}

/// The machine's clock: `ContinuousClock` for instants, `Date()` for the date.
public struct SystemClock: HandoffClock {
    public init() {}

    public var now: ContinuousClock.Instant { .now }
    public var date: Date { Date() }
    public var minimumResolution: Duration { ContinuousClock().minimumResolution }

    public func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        try await ContinuousClock().sleep(until: deadline, tolerance: tolerance)
    }

    /// A timer on the main queue, which is the main actor's: nothing runs before it fires.
    public func onMainActor(at deadline: ContinuousClock.Instant, _ body: @escaping @MainActor @Sendable () -> Void) {
        let wait = max(.zero, deadline - .now)
        DispatchQueue.main.asyncAfter(deadline: .now() + wait.seconds) { MainActor.assumeIsolated { body() } }
    }
}
