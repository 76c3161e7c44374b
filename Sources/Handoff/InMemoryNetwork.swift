import Foundation
import Synchronization

/// A LAN in memory: every datagram one attached transport sends reaches every attached
/// transport (the sender too, as multicast loop does), through each receiver's faults.
public final class InMemoryNetwork: Sendable {
    private let transports = Mutex<[InMemoryTransport]>([])

    public init() {}

    /// A new transport attached to this network, receiving through `faults`.
    public func makeTransport(faults: FaultPlan = .none, name: String = "memory") -> InMemoryTransport {
        let transport = InMemoryTransport(network: self, faults: faults, name: name)
        transports.withLock { $0.append(transport) }
        return transport
    }

    func deliver(_ bytes: [UInt8], from sender: InMemoryTransport) {
        let receivers = transports.withLock { $0 }
        for receiver in receivers { receiver.receive(bytes, from: sender.name) }
    }

    func detach(_ transport: InMemoryTransport) {
        transports.withLock { $0.removeAll { $0 === transport } }
    }
}

/// What goes wrong on the way to one receiver, drawn from a seeded generator so a test repeats.
public struct FaultPlan: Sendable {
    /// Chance that a datagram is lost.
    public var dropRate: Double
    /// Chance that a datagram arrives twice.
    public var duplicateRate: Double
    /// Chance that a datagram is held back and arrives after the next one.
    public var reorderRate: Double
    public var seed: UInt64

    public init(dropRate: Double = 0, duplicateRate: Double = 0, reorderRate: Double = 0, seed: UInt64 = 1) {
        self.dropRate = dropRate
        self.duplicateRate = duplicateRate
        self.reorderRate = reorderRate
        self.seed = seed
    }

    /// Every datagram arrives once, in order.
    public static let none = FaultPlan()
}

/// One peer's attachment to an `InMemoryNetwork`.
public final class InMemoryTransport: ActivityTransport {
    private struct State {
        var random: SplitMix64
        var heldBack: [UInt8]?
        var closed = false
        var received = 0
        var dropped = 0
    }

    public let name: String
    public let incoming: AsyncStream<ReceivedDatagram>
    private let continuation: AsyncStream<ReceivedDatagram>.Continuation
    private let network: InMemoryNetwork
    private let faults: FaultPlan
    private let state: Mutex<State>

    init(network: InMemoryNetwork, faults: FaultPlan, name: String) {
        self.network = network
        self.faults = faults
        self.name = name
        (incoming, continuation) = AsyncStream.makeStream(of: ReceivedDatagram.self)
        state = Mutex(State(random: SplitMix64(seed: faults.seed)))
    }

    public var endpointDescription: String { "in-memory network (\(name))" }

    /// Datagrams delivered to `incoming`, and datagrams the faults dropped.
    public var counts: (delivered: Int, dropped: Int) { state.withLock { ($0.received, $0.dropped) } }

    public func send(_ bytes: [UInt8]) async throws {
        guard !state.withLock({ $0.closed }) else { throw CancellationError() }
        network.deliver(bytes, from: self)
    }

    public func close() async {
        state.withLock { $0.closed = true }
        network.detach(self)
        continuation.finish()
    }

    func receive(_ bytes: [UInt8], from source: String) {
        let deliveries: [[UInt8]] = state.withLock { s in
            guard !s.closed else { return [] }
            if s.random.nextUnit() < faults.dropRate {
                s.dropped += 1
                return []
            }
            var out: [[UInt8]] = []
            if s.heldBack == nil, s.random.nextUnit() < faults.reorderRate {
                s.heldBack = bytes
                return []
            }
            out.append(bytes)
            if s.random.nextUnit() < faults.duplicateRate { out.append(bytes) }
            if let held = s.heldBack {
                out.append(held)
                s.heldBack = nil
            }
            s.received += out.count
            return out
        }
        for bytes in deliveries { continuation.yield(ReceivedDatagram(bytes: bytes, source: source)) }
    }
}

/// A small, fast, seeded generator (SplitMix64) for repeatable faults.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in 0..<1.
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
