import Handoff
import NIOCore

/// Hands every datagram the channel reads to the transport's receiver, on this thread, or
/// else to its `incoming` stream.
final class DatagramInboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    /// The receiver, boxed: a bare closure kept in a generic `LockedValue` would be wrapped in
    /// two more reabstraction thunks at every `withLock`, a chain that grows with every datagram.
    final class Receiver: Sendable {
        let receive: @Sendable (ReceivedDatagram) -> Void
        init(_ receive: @escaping @Sendable (ReceivedDatagram) -> Void) { self.receive = receive }
    }

    private let continuation: AsyncStream<ReceivedDatagram>.Continuation
    private let statistics: LockedValue<MulticastStatistics>
    private let receiver: LockedValue<Receiver?>

    init(
        continuation: AsyncStream<ReceivedDatagram>.Continuation, statistics: LockedValue<MulticastStatistics>,
        receiver: LockedValue<Receiver?>
    ) {
        self.continuation = continuation
        self.statistics = statistics
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let datagram = ReceivedDatagram(
            bytes: Array(envelope.data.readableBytesView),
            source: Self.describe(envelope.remoteAddress)
        )
        var discarded = false
        if let receiver = receiver.withLock({ $0 }) {
            receiver.receive(datagram)
        } else if case .dropped = continuation.yield(datagram) {
            discarded = true
        }
        statistics.withLock { counts in
            counts.received += 1
            if discarded { counts.discarded += 1 }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    /// Read errors on a datagram socket (e.g. an ICMP error for an earlier send) affect one
    /// datagram, not the channel: swallow them and keep reading.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {}

    /// `10.77.0.11:47788`, rather than NIO's `[IPv4]10.77.0.11/10.77.0.11:47788`.
    static func describe(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress, let port = address.port else { return address.description }
        return "\(ip):\(port)"
    }
}
