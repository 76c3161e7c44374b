import FoundationEssentials
import HandoffWire

/// When this peer sends the statements it keeps (docs/PROTOCOL.md section 17, "DEVICES"),
/// without I/O: at start, at once after a change, every `interval`, and in answer to a
/// listed device whose digest differs, at most once per `answerSpacing`. Every input carries
/// the time, a monotonic instant (the statements carry their own dates, made by the runner);
/// every answer is the DEVICES messages to send; `nextDeadline` says when it wants `tick`. What
/// the statements say (the list, the keys) is the `Membership`'s; this is only the gossip's
/// timing.
struct DevicesCore: Equatable, Sendable {
    /// What the caller must do.
    enum Action: Equatable, Sendable {
        /// Send this DEVICES message now (under the previous group key too, when one is held).
        case send(HandoffMessage)
    }

    /// How often the statements go out besides at start and after a change.
    let interval: Duration
    /// The least time between two sends in answer to a digest that differs.
    let answerSpacing: Duration
    /// The DEVICES messages that carry the statements kept; none while there are none.
    private(set) var messages: [HandoffMessage] = []
    /// When they go out next; nil while there are none, or before start.
    private(set) var due: ContinuousClock.Instant?
    private(set) var lastSent: ContinuousClock.Instant?
    private(set) var isStarted = false
    private(set) var isShutDown = false

    init(interval: Duration, answerSpacing: Duration) {
        self.interval = interval
        self.answerSpacing = answerSpacing
    }

    /// When the core next wants `tick`.
    var nextDeadline: ContinuousClock.Instant? { isStarted && !isShutDown ? due : nil }

    /// Starts: `messages`, the statements kept, go out at the first `tick` (due now).
    mutating func start(_ messages: [HandoffMessage], now: ContinuousClock.Instant) {
        guard !isStarted, !isShutDown else { return }
        isStarted = true
        keep(messages, due: now)
    }

    /// The statements kept changed (statements heard, or another process changed the files):
    /// they go out at once.
    mutating func changed(_ messages: [HandoffMessage], now: ContinuousClock.Instant) -> [Action] {
        keep(messages, due: now)
        return isStarted && !isShutDown ? sendAll(now: now) : []
    }

    /// A listed device's DEVICES digest differs from ours and brought nothing new: it lacks
    /// some of our statements. Ours go out at once, or `answerSpacing` after the last send.
    mutating func differs(now: ContinuousClock.Instant) -> [Action] {
        guard isStarted, !isShutDown, !messages.isEmpty else { return [] }
        if let last = lastSent, now - last < answerSpacing {
            let answer = last.advanced(by: answerSpacing)
            due = min(due ?? answer, answer)
            return []
        }
        return sendAll(now: now)
    }

    /// Carries out what is due at `now`.
    mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        guard isStarted, !isShutDown, let due, due <= now else { return [] }
        return sendAll(now: now)
    }

    /// No sends after this.
    mutating func shutdown() {
        isShutDown = true
        due = nil
    }

    private mutating func keep(_ messages: [HandoffMessage], due: ContinuousClock.Instant) {
        // A device that keeps no statement has nothing to tell: it sends no DEVICES.
        let empty = messages.allSatisfy { if case .devices(let statements, _) = $0 { statements.isEmpty } else { true } }
        self.messages = empty ? [] : messages
        self.due = self.messages.isEmpty ? nil : due
    }

    private mutating func sendAll(now: ContinuousClock.Instant) -> [Action] {
        guard !messages.isEmpty else { return [] }
        lastSent = now
        due = now.advanced(by: interval)
        return messages.map { .send($0) }
    }
}
