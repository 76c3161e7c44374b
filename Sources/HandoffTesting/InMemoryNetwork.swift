import Handoff
import Synchronization

/// A LAN in memory: every datagram one attached transport sends reaches every attached
/// transport (the sender too, as multicast loop does), through each receiver's faults.
///
/// Its transports implement `ActivityTransport` exactly as `MulticastTransport` does: `send`
/// returns at once, and datagrams reach each receiver's handler one at a time, in order, on
/// a thread of the network's own, never on the sender's.
public final class InMemoryNetwork: Sendable {
    /// The attached transports, each with how many datagrams had been sent when it attached,
    /// shared with the carrier task.
    private final class Attached: Sendable {
        struct State {
            var transports: [(transport: InMemoryTransport, attachedAfter: UInt64)] = []
            var sent: UInt64 = 0
            /// Datagrams the carrier has handed to every receiver.
            var carried: UInt64 = 0
            /// Pairs of transport names that do not hear each other, each as [lower, higher].
            var cut: Set<[String]> = []
        }
        let state = Mutex(State())
    }

    private let attached = Attached()
    private let wire: AsyncStream<(bytes: [UInt8], sender: InMemoryTransport, number: UInt64)>.Continuation

    public init() {
        let (stream, continuation) = AsyncStream.makeStream(of: (bytes: [UInt8], sender: InMemoryTransport, number: UInt64).self)
        wire = continuation
        let attached = attached
        // One carrier for the whole network keeps every receiver's arrivals in send order. A
        // transport hears only what was sent after it attached, as on a wire: on a loaded
        // machine the carrier may still hold datagrams sent before a peer started.
        Task.detached {
            for await (bytes, sender, number) in stream {
                let (receivers, cut) = attached.state.withLock { ($0.transports, $0.cut) }
                for (receiver, after) in receivers where number > after {
                    guard cut.isEmpty || !cut.contains([sender.name, receiver.name].sorted()) else { continue }
                    receiver.receive(bytes, from: sender.name)
                }
                attached.state.withLock { $0.carried = number }
            }
        }
    }

    deinit { wire.finish() }

    /// Datagrams sent that the carrier has not yet handed to their receivers: 0 when the wire
    /// is empty (what each receiver's handler then does with them may still be under way).
    public var inFlight: Int { attached.state.withLock { Int($0.sent - $0.carried) } }

    /// A new transport attached to this network, receiving through `faults`.
    public func makeTransport(faults: FaultPlan = .none, name: String = "memory") -> InMemoryTransport {
        let transport = InMemoryTransport(network: self, faults: faults, name: name)
        attached.state.withLock { $0.transports.append((transport, $0.sent)) }
        return transport
    }

    /// From now on the transports named `a` and `b` do not hear each other (a partition), until
    /// `heal()`.
    public func cut(between a: String, and b: String) {
        attached.state.withLock { _ = $0.cut.insert([a, b].sorted()) }
    }

    /// Every pair hears each other again.
    public func heal() {
        attached.state.withLock { $0.cut.removeAll() }
    }

    func carry(_ bytes: [UInt8], from sender: InMemoryTransport) {
        // Numbered and handed to the carrier under one lock, so numbers reach it in order.
        attached.state.withLock { state in
            state.sent += 1
            wire.yield((bytes, sender, state.sent))
        }
    }

    func detach(_ transport: InMemoryTransport) {
        attached.state.withLock { $0.transports.removeAll { $0.transport === transport } }
    }
}
