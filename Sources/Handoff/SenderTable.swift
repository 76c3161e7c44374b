import FoundationEssentials
import HandoffWire

/// Per-sender replay state: the highest sequence accepted from each sender id, which of the
/// `window` sequences up to it were accepted, and the address it was last heard from.
///
/// - A sequence above the highest is new; so is one less than `window` below it that was not
///   accepted yet (it was overtaken on the way: a path that reorders loses nothing). One in the
///   window already accepted is the same datagram again (`duplicate`); one `window` or more
///   below the highest is a `replay`, since the table no longer knows whether it was heard.
/// - No address is bound to a sender id: every datagram that reaches the table was signed by
///   the device the id names, so a move to another address is heard at once, and only that
///   device can push its sequence up.
/// - An entry expires `lifetime` after the sender's last accepted datagram (twice the
///   allowed clock skew: by then every datagram it had sent fails the skew check, so a
///   replay needs no memory).
/// - At most `limit` senders are tracked; a new one past the limit pushes out the quarter
///   heard least recently (a sender pushed out starts afresh if it speaks again).
public struct SenderTable: Sendable {
    /// What the table says of one datagram.
    public enum Verdict: Equatable, Sendable {
        case fresh
        /// The sequence is `window` or more below the highest accepted from this sender.
        case replay
        /// A sequence already accepted from this sender, among the last `window` up to its
        /// highest: the same datagram heard again (by multicast and by unicast). Dropped, but
        /// not a rejection.
        case duplicate
    }

    private struct State {
        var highestSequence: UInt64
        /// Bit n set: `highestSequence − n` was accepted.
        var acceptedBelow: UInt64 = 1
        var lastAccepted: Date
        var source: String?
    }

    /// How many sequences up to the highest (itself included) are remembered as accepted or not:
    /// a late one among them is still taken, an accepted one again is a duplicate.
    public static let window: UInt64 = 64

    public let limit: Int
    /// How long an entry lives after its sender's last accepted datagram.
    public let lifetime: TimeInterval
    private var senders: [SenderID: State] = [:]

    public init(limit: Int = PeerDirectory.Limits().maxSenders, lifetime: TimeInterval = 120) {
        self.limit = max(1, limit)
        self.lifetime = lifetime
    }

    /// How many senders are tracked (expired ones included until they are pushed out or replaced).
    public var count: Int { senders.count }

    /// Whether a datagram from `sender` with `sequence` may be accepted at `now`.
    public func verdict(sender: SenderID, sequence: UInt64, at now: Date) -> Verdict {
        guard let state = senders[sender], now.timeIntervalSince(state.lastAccepted) < lifetime else { return .fresh }
        if sequence > state.highestSequence { return .fresh }
        let distance = state.highestSequence - sequence
        guard distance < Self.window else { return .replay }
        return state.acceptedBelow & (1 << distance) != 0 ? .duplicate : .fresh
    }

    /// Records that a datagram from `sender` with `sequence` was accepted at `now`, from
    /// `source` (nil keeps the address it was last heard from).
    public mutating func accept(sender: SenderID, sequence: UInt64, source: String?, at now: Date) {
        if var state = senders[sender], now.timeIntervalSince(state.lastAccepted) < lifetime {
            if sequence > state.highestSequence {
                let shift = sequence - state.highestSequence
                state.acceptedBelow = shift < Self.window ? (state.acceptedBelow << shift) | 1 : 1
                state.highestSequence = sequence
            } else if state.highestSequence - sequence < Self.window {
                // A late one, within the window: marked, so that it is a duplicate if heard again.
                state.acceptedBelow |= 1 << (state.highestSequence - sequence)
            }
            state.lastAccepted = now
            state.source = source ?? state.source
            senders[sender] = state
            return
        }
        if senders[sender] == nil, senders.count >= limit {
            // A quarter at a time, so that a flood of new ids costs one sort per many of them
            // rather than a scan of the whole table for each.
            let oldest = senders.sorted { $0.value.lastAccepted < $1.value.lastAccepted }.prefix(max(1, limit / 4))
            for (id, _) in oldest { senders[id] = nil }
        }
        senders[sender] = State(highestSequence: sequence, lastAccepted: now, source: source)
    }
}
