import Foundation

/// Per-sender replay state: the highest sequence accepted from each sender id.
///
/// Bounded: at most `limit` senders are tracked; a new one past the limit pushes out the
/// quarter heard least recently (a sender pushed out starts afresh if it speaks again).
public struct SenderTable: Sendable {
    private struct State {
        var highestSequence: UInt64
        var lastHeard: Date
    }

    public let limit: Int
    private var senders: [SenderID: State] = [:]

    public init(limit: Int = PeerDirectory.Limits().maxSenders) {
        self.limit = max(1, limit)
    }

    /// How many senders are tracked.
    public var count: Int { senders.count }

    /// False when `sequence` is not above the highest accepted from `sender` (replay or reorder).
    public func isFresh(sender: SenderID, sequence: UInt64) -> Bool {
        guard let state = senders[sender] else { return true }
        return sequence > state.highestSequence
    }

    /// Records that a datagram from `sender` with `sequence` was accepted.
    public mutating func accept(sender: SenderID, sequence: UInt64, at now: Date) {
        if var state = senders[sender] {
            state.highestSequence = max(state.highestSequence, sequence)
            state.lastHeard = now
            senders[sender] = state
            return
        }
        if senders.count >= limit {
            // A quarter at a time, so that a flood of new ids costs one sort per many of them
            // rather than a scan of the whole table for each.
            let oldest = senders.sorted { $0.value.lastHeard < $1.value.lastHeard }.prefix(max(1, limit / 4))
            for (id, _) in oldest { senders[id] = nil }
        }
        senders[sender] = State(highestSequence: sequence, lastHeard: now)
    }
}
