import Handoff
import NIOCore

/// Hands every datagram the channel reads to the transport's handler, on this thread.
final class DatagramInboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let state: TransportState

    init(state: TransportState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let handler = state.received() else { return }
        handler.receive(
            ReceivedDatagram(bytes: Array(envelope.data.readableBytesView), source: Self.describe(envelope.remoteAddress)))
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
