import Handoff
import NIOCore

/// Hands every datagram the channel reads to the transport's handler, on this thread, saying
/// whether it came to the group or to this host; an accepted unicast datagram teaches its
/// source as a peer.
final class DatagramInboundHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let state: TransportState
    /// The group's IPv4 address as the kernel gives it (network order), to tell a multicast
    /// copy from a unicast one without formatting an address for every datagram.
    private let group: UInt32?
    private let learn: (SocketAddress, String) -> Void

    init(state: TransportState, group: SocketAddress, learn: @escaping (SocketAddress, String) -> Void) {
        self.state = state
        if case .v4(let address) = group { self.group = address.address.sin_addr.s_addr } else { self.group = nil }
        self.learn = learn
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let handler = state.received() else { return }
        let path: DatagramPath
        switch envelope.metadata?.packetInfo?.destinationAddress {
        case .v4(let destination)?: path = destination.address.sin_addr.s_addr == group ? .multicast : .unicast
        case .some: path = .unicast
        case nil: path = .unspecified
        }
        let source = Self.describe(envelope.remoteAddress)
        let verdict = handler.deliver(
            ReceivedDatagram(bytes: Array(envelope.data.readableBytesView), source: source, path: path))
        if verdict == .accepted, path == .unicast { learn(envelope.remoteAddress, source) }
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
