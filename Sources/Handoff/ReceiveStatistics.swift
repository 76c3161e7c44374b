import HandoffWire
/// Counts of what arrived: accepted, ignored as our own, and dropped by reason.
public struct ReceiveStatistics: Equatable, Sendable {
    public var accepted = 0
    /// Datagrams carrying this peer's own sender id (multicast loop).
    public var own = 0
    /// Datagrams accepted once and heard again, e.g. by multicast and by unicast from a `--peer`:
    /// dropped, but not a rejection.
    public var duplicate = 0
    public var rejected: [RejectionReason: Int] = [:]

    public init() {}

    /// All dropped datagrams, whatever the reason.
    public var totalRejected: Int { rejected.values.reduce(0, +) }

    /// How many were dropped for this reason.
    public subscript(reason: RejectionReason) -> Int { rejected[reason, default: 0] }

    mutating func count(_ reason: RejectionReason) { rejected[reason, default: 0] += 1 }

    /// Adds another set of counts to these.
    mutating func add(_ other: ReceiveStatistics) {
        accepted += other.accepted
        own += other.own
        duplicate += other.duplicate
        rejected.merge(other.rejected, uniquingKeysWith: +)
    }

    /// True when nothing was counted.
    var isEmpty: Bool { accepted == 0 && own == 0 && duplicate == 0 && rejected.isEmpty }
}
