import Handoff
import HandoffWire
import NIOCore
import NIOPosix

/// The one TCP connection: the sharer's listener, the joiner's connect, and the bytes between.
extension PairingSession {
    /// Sharer: TCP on all addresses at the port. The first connection is the pairing's; one
    /// more while it is open is closed and ends the pairing (another pairing is running).
    func openListener() -> EventLoopFuture<Void> {
        let port = settings.port
        return ServerBootstrap(group: loop)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 4)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard self.accept(channel) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(FrameHandler(session: self))
                }
            }
            .bind(host: "0.0.0.0", port: port)
            .flatMapErrorThrowing { error in
                throw PairingSetupError(
                    "Cannot listen on TCP port \(port) for pairing (is another `baton pair` running here?): \(Self.reason(for: error)).")
            }
            .map { self.listener = $0 }
    }

    /// Whether `channel` becomes the pairing's connection; when it does not, it is closed (by
    /// the failed initializer) and a second connection while one is open ends the pairing.
    private func accept(_ channel: any Channel) -> Bool {
        guard !ended else { return false }
        guard connection == nil else {
            apply(machine.otherPairingSeen(from: channel.remoteAddress?.ipAddress))
            return false
        }
        connection = channel
        return true
    }

    /// Joiner: connects to the sharer at `target` and sends COMMIT; fails with the sentence to
    /// print. It gives up at the pairing's deadline, as the rest of the pairing does.
    func connect(to target: SocketAddress) -> EventLoopFuture<Void> {
        let timeLeft = max(deadline - .now(), .milliseconds(1))
        connecting = target
        return ClientBootstrap(group: loop)
            .connectTimeout(timeLeft)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FrameHandler(session: self))
                }
            }
            .connect(to: target)
            .flatMapErrorThrowing { error in
                self.connecting = nil
                if case ChannelError.connectTimeout = error { throw PairingSetupError(self.noAnswer(from: target)) }
                let place = "\(target.ipAddress ?? "?"):\(target.port ?? 0)"
                throw PairingSetupError("Cannot reach `baton pair` at \(place): \(Self.reason(for: error)).")
            }
            .map { channel in
                self.connecting = nil
                guard !self.ended else {
                    channel.close(promise: nil)
                    return
                }
                self.connection = channel
                self.apply(self.machine.start())
            }
    }

    func received(_ bytes: [UInt8], on channel: any Channel) {
        guard !ended, channel === connection else { return }
        apply(machine.received(bytes))
    }

    func closed(_ channel: any Channel) {
        guard !ended, channel === connection else { return }
        apply(machine.connectionClosed())
    }
}
