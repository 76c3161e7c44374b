import FoundationEssentials
import HandoffWire

/// How often a peer answers QUERYs, per asker and in all, so that a stream of small QUERYs
/// cannot make it multicast its ANNOUNCE again and again (docs/PROTOCOL.md section 8).
///
/// - One asker (sender id) is answered at most once per `askerInterval`. Its retries, 0.1,
///   0.3, 0.7 s … after its first QUERY, still get an answer when the first was lost.
/// - All askers together get at most `burst` answers at once and `perSecond` a second after
///   that (a token bucket): QUERYs from thousands of forged sender ids buy no more.
/// - A QUERY that arrives while an answer is already pending shares it (the answer goes to the
///   whole group), and counts as answered for its asker.
public struct QueryAnswerLimit: Sendable {
    public var askerInterval: TimeInterval
    public var perSecond: Double
    public var burst: Double
    public let maxAskers: Int

    private var tokens: Double
    private var refilledAt: Date?
    private var lastAnswered: [SenderID: Date] = [:]

    public init(askerInterval: TimeInterval = 0.25, perSecond: Double = 8, burst: Double = 8, maxAskers: Int = 1024) {
        self.askerInterval = askerInterval
        self.perSecond = perSecond
        self.burst = burst
        self.maxAskers = max(1, maxAskers)
        tokens = burst
    }

    /// Whether a QUERY from `asker` at `now` may be answered, given whether an answer is already
    /// `pending`. When it may, the asker is counted as answered; a new answer also spends a token.
    public mutating func allows(_ asker: SenderID, at now: Date, pending: Bool) -> Bool {
        if let last = lastAnswered[asker], now.timeIntervalSince(last) < askerInterval, now >= last { return false }
        if !pending {
            refill(at: now)
            guard tokens >= 1 else { return false }
            tokens -= 1
        }
        remember(asker, at: now)
        return true
    }

    private mutating func refill(at now: Date) {
        if let refilledAt, now > refilledAt {
            tokens = min(burst, tokens + now.timeIntervalSince(refilledAt) * perSecond)
        }
        if refilledAt == nil || now > refilledAt! { refilledAt = now }
    }

    private mutating func remember(_ asker: SenderID, at now: Date) {
        if lastAnswered[asker] == nil, lastAnswered.count >= maxAskers {
            // Forget those whose interval has passed; if none has, the oldest half.
            lastAnswered = lastAnswered.filter { now.timeIntervalSince($0.value) < askerInterval }
            if lastAnswered.count >= maxAskers {
                for (id, _) in lastAnswered.sorted(by: { $0.value < $1.value }).prefix(maxAskers / 2) { lastAnswered[id] = nil }
            }
        }
        lastAnswered[asker] = now
    }
}
