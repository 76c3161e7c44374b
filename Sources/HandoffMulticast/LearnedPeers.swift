import NIOCore

/// Unicast peers learnt from what was heard: a source whose datagram arrived by unicast and was
/// accepted under the group key (PROTOCOL.md section 1, "Peers learnt by unicast").
///
/// Each is sent every datagram for `lifetime` after the last such datagram, so naming the
/// other machine on one side is enough. Only accepted datagrams teach or refresh: one that does
/// not open under the key, a duplicate and a replay do neither. At most `limit` are kept; a
/// new one past the limit pushes out the one heard least recently.
struct LearnedPeers {
    /// How long a learnt peer is sent to after it was last heard: as long as the receiver
    /// remembers a sender (PROTOCOL.md section 7, the replay table).
    static let lifetime: TimeAmount = .seconds(120)
    /// How many are kept at once.
    static let limit = 64

    private var peers: [String: (address: SocketAddress, lastHeard: NIODeadline)] = [:]

    /// Notes an accepted unicast datagram from `address`; true when the peer is new.
    @discardableResult
    mutating func heard(_ address: SocketAddress, key: String, at now: NIODeadline) -> Bool {
        let isNew = peers[key].map { now - $0.lastHeard >= Self.lifetime } ?? true
        if peers[key] == nil, peers.count >= Self.limit,
            let oldest = peers.min(by: { $0.value.lastHeard < $1.value.lastHeard })?.key
        {
            peers[oldest] = nil
        }
        peers[key] = (address, now)
        return isNew
    }

    /// The peers still current at `now`, in a stable order; expired ones are forgotten.
    mutating func current(at now: NIODeadline) -> [(key: String, address: SocketAddress)] {
        peers = peers.filter { now - $0.value.lastHeard < Self.lifetime }
        return peers.sorted { $0.key < $1.key }.map { ($0.key, $0.value.address) }
    }

    /// How many are kept (expired ones included until the next `current`).
    var count: Int { peers.count }
}

/// Destinations whose last send failed, held back so that one bad address does not cost the
/// socket again and again (a send error closes SwiftNIO's datagram channel): 1 s after the
/// first failure, doubling to 30 s while it keeps failing.
struct SendBackoff {
    static let first: TimeAmount = .seconds(1)
    static let longest: TimeAmount = .seconds(30)

    private var held: [String: (until: NIODeadline, delay: TimeAmount)] = [:]

    /// Whether `key` may be sent to at `now`.
    func allows(_ key: String, at now: NIODeadline) -> Bool {
        guard let entry = held[key] else { return true }
        return now >= entry.until
    }

    /// A send to `key` failed at `now`; true when it had not been failing (worth saying so).
    @discardableResult
    mutating func failed(_ key: String, at now: NIODeadline) -> Bool {
        let previous = held[key]
        let delay = previous.map { min($0.delay * 2, Self.longest) } ?? Self.first
        held[key] = (now + delay, delay)
        return previous == nil
    }

    /// A send to `key` went out: it is no longer held back.
    mutating func succeeded(_ key: String) {
        held[key] = nil
    }
}
