import NIOCore

/// Hands each datagram on the HELLO socket to the session.
final class HelloHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    let session: PairingSession

    init(session: PairingSession) {
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        session.heard(Array(envelope.data.readableBytesView), from: envelope.remoteAddress)
    }

    /// A read error (an ICMP answer to an earlier send) concerns one datagram: keep listening.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
