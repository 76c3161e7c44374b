import Handoff
import Synchronization

/// A LAN in memory: every datagram one attached transport sends reaches every attached
/// transport (the sender too, as multicast loop does), through each receiver's faults.
///
/// Its transports implement `ActivityTransport` exactly as `MulticastTransport` does: `send`
/// returns at once, and datagrams reach each receiver's handler one at a time, in order, on
/// a thread of the network's own, never on the sender's.
public final class InMemoryNetwork: Sendable {
    /// The attached transports, shared with the carrier task.
    private final class Attached: Sendable {
        let transports = Mutex<[InMemoryTransport]>([])
    }

    private let attached = Attached()
    private let wire: AsyncStream<(bytes: [UInt8], sender: InMemoryTransport)>.Continuation

    public init() {
        let (stream, continuation) = AsyncStream.makeStream(of: (bytes: [UInt8], sender: InMemoryTransport).self)
        wire = continuation
        let attached = attached
        // One carrier for the whole network keeps every receiver's arrivals in send order.
        Task.detached {
            for await (bytes, sender) in stream {
                for receiver in attached.transports.withLock({ $0 }) { receiver.receive(bytes, from: sender.name) }
            }
        }
    }

    deinit { wire.finish() }

    /// A new transport attached to this network, receiving through `faults`.
    public func makeTransport(faults: FaultPlan = .none, name: String = "memory") -> InMemoryTransport {
        let transport = InMemoryTransport(network: self, faults: faults, name: name)
        attached.transports.withLock { $0.append(transport) }
        return transport
    }

    func carry(_ bytes: [UInt8], from sender: InMemoryTransport) {
        wire.yield((bytes, sender))
    }

    func detach(_ transport: InMemoryTransport) {
        attached.transports.withLock { $0.removeAll { $0 === transport } }
    }
}
