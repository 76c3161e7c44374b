import Handoff
import NIOCore

/// Hands every datagram the channel reads to the transport's handler, on this thread, saying
/// whether it came to the group or to this host; an accepted unicast datagram teaches its
/// source as a peer.
final class DatagramInboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let state: TransportState
    private let groupIP: String?
    private let learn: (SocketAddress) -> Void

    init(state: TransportState, groupIP: String?, learn: @escaping (SocketAddress) -> Void) {
        self.state = state
        self.groupIP = groupIP
        self.learn = learn
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let handler = state.received() else { return }
        let path: DatagramPath
        if let destination = envelope.metadata?.packetInfo?.destinationAddress.ipAddress {
            path = destination == groupIP ? .multicast : .unicast
        } else {
            path = .unspecified
        }
        let verdict = handler.deliver(
            ReceivedDatagram(
                bytes: Array(envelope.data.readableBytesView), source: Self.describe(envelope.remoteAddress), path: path))
        if verdict == .accepted, path == .unicast { learn(envelope.remoteAddress) }
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
