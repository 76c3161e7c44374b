import Handoff
import Synchronization

/// One peer's attachment to an `InMemoryNetwork`.
public final class InMemoryTransport: ActivityTransport {
    private struct State {
        var random: SplitMix64
        var handler: TransportHandler?
        /// Datagrams held back, each with how many later datagrams are still to overtake it.
        var heldBack: [(bytes: [UInt8], overtakers: Int)] = []
        var closed = false
        var sent = 0
        var received = 0
        var dropped = 0
        var reordered = 0
    }

    public let name: String
    private let network: InMemoryNetwork
    private let faults: FaultPlan
    private let state: Mutex<State>

    init(network: InMemoryNetwork, faults: FaultPlan, name: String) {
        self.network = network
        self.faults = faults
        self.name = name
        state = Mutex(State(random: SplitMix64(seed: faults.seed)))
    }

    public var endpointDescription: String { "in-memory network (\(name))" }

    /// Datagrams sent, delivered to the handler, and dropped by the faults.
    public var counts: (sent: Int, delivered: Int, dropped: Int) {
        state.withLock { ($0.sent, $0.received, $0.dropped) }
    }

    /// Datagrams the faults delivered after a later one (held back, then overtaken).
    public var reorderedCount: Int { state.withLock { $0.reordered } }

    /// Datagrams held back that no later datagram has released yet.
    public var heldBackCount: Int { state.withLock { $0.heldBack.count } }

    public func start(_ handler: TransportHandler) {
        state.withLock { $0.handler = handler }
    }

    public func send(_ bytes: [UInt8]) {
        let outcome: TransportHandler?? = state.withLock { s in
            if s.closed { return .some(s.handler) }
            s.sent += 1
            return .none
        }
        if case .some(let handler) = outcome {
            handler?.sendFailed(.closed)
            return
        }
        network.carry(bytes, from: self)
    }

    public func close() async {
        state.withLock {
            $0.closed = true
            $0.handler = nil
        }
        network.detach(self)
    }

    /// Called on the network's carrier thread for every datagram on the wire.
    func receive(_ bytes: [UInt8], from source: String) {
        let (handler, deliveries): (TransportHandler?, [[UInt8]]) = state.withLock { s in
            guard !s.closed, let handler = s.handler else { return (nil, []) }
            if s.random.nextUnit() < faults.dropRate {
                s.dropped += 1
                return (nil, [])
            }
            if s.heldBack.count < faults.reorderDepth, s.random.nextUnit() < faults.reorderRate {
                let overtakers = faults.reorderDepth == 1 ? 1 : Int.random(in: 1...faults.reorderDepth, using: &s.random)
                s.heldBack.append((bytes, overtakers))
                return (nil, [])
            }
            var out = [bytes]
            if s.random.nextUnit() < faults.duplicateRate { out.append(bytes) }
            // This datagram overtook every one held back; those it was the last to overtake follow it.
            for index in s.heldBack.indices { s.heldBack[index].overtakers -= 1 }
            let released = s.heldBack.filter { $0.overtakers <= 0 }
            s.heldBack.removeAll { $0.overtakers <= 0 }
            out += released.map(\.bytes)
            s.reordered += released.count
            s.received += out.count
            return (handler, out)
        }
        guard let handler else { return }
        for bytes in deliveries { handler.receive(ReceivedDatagram(bytes: bytes, source: source)) }
    }
}
