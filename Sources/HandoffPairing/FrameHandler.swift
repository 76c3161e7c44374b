import NIOCore

/// Hands the connection's bytes, and its end, to the session.
final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let session: PairingSession

    init(session: PairingSession) {
        self.session = session
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        session.received(Array(unwrapInboundIn(data).readableBytesView), on: context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        session.closed(context.channel)
        context.fireChannelInactive()
    }

    /// A reset or another read error ends the connection, which `channelInactive` reports.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
