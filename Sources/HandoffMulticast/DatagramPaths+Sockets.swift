import Handoff
import NIOCore
import NIOPosix

/// The two sockets: made, adopted, and opened again when a send error closed one.
extension DatagramPaths {
    // MARK: The sockets

    func bootstrap() -> DatagramBootstrap {
        let state = state
        let groupAddress = group
        return DatagramBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            // Room for a burst while the thread is busy (the kernel caps it at net.core.rmem_max).
            .channelOption(.socketOption(.so_rcvbuf), value: MulticastTransport.socketReceiveBufferSize)
            .channelOption(
                .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: MulticastTransport.receiveBufferSize)
            )
            // The destination address tells a multicast copy from a unicast one.
            .channelOption(.receivePacketInfo, value: true)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramInboundHandler(state: state, group: groupAddress, learn: { [weak self] in self?.learn($0, key: $1) }))
                }
            }
    }

    func bindMain() -> EventLoopFuture<any Channel> {
        bootstrap().bind(to: anyAddress).flatMap { channel in
            #if os(Linux)
            // Without this Linux hands the socket every group joined by anyone on the host on this port.
            channel.setOption(Self.multicastAll, value: 0).map { channel }
            #else
            self.loop.makeSucceededFuture(channel)
            #endif
        }
    }

    private var anyAddress: SocketAddress {
        // The configuration was validated: this cannot fail.
        try! SocketAddress(ipAddress: "0.0.0.0", port: configuration.port)
    }

    #if os(Linux)
    static let multicastAll = ChannelOptions.Types.SocketOption(
        level: .ip, name: .init(rawValue: IP_MULTICAST_ALL))
    #endif

    func adoptMain(_ channel: any Channel) {
        mainGeneration += 1
        let generation = mainGeneration
        main = channel
        mainProblem = nil
        isJoined = false
        channel.closeFuture.whenComplete { _ in self.mainClosed(generation: generation) }
    }

    /// The main socket closed under us (a send error): open it again, join again.
    func mainClosed(generation: Int) {
        guard !isClosing, generation == mainGeneration else { return }
        main = nil
        mainProblem = "reopening the socket"
        publish()
        let delay = mainReopenDelay
        mainReopenDelay = min(mainReopenDelay * 2, .seconds(2))
        loop.scheduleTask(in: delay) { self.reopenMain() }
    }

    func reopenMain() {
        guard !isClosing, main == nil else { return }
        bindMain().whenComplete { result in
            switch result {
            case .success(let channel):
                guard !self.isClosing else {
                    channel.close(promise: nil)
                    return
                }
                self.state.reopened()
                self.mainReopenDelay = .milliseconds(20)
                self.adoptMain(channel)
                self.setUpMulticast().whenComplete { _ in self.publish() }
            case .failure(let error):
                self.mainProblem = "cannot bind port \(self.configuration.port): \(MulticastError.reason(for: error))"
                self.publish()
                self.loop.scheduleTask(in: self.mainReopenDelay) { self.reopenMain() }
            }
        }
    }
}
