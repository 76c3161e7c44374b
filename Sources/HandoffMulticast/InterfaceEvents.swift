import CNetlink
import NIOCore
import NIOPosix

/// Word from the kernel that this namespace's links, IPv4 addresses or IPv4 routes changed.
///
/// A routing netlink socket bound to those three groups, read through SwiftNIO as a pipe on the
/// transport's own loop (the socket belongs to the namespace of the thread that makes it, as the
/// interfaces looked at do). What a message says is not read: any message means "look again", and
/// the look is the one the transport made every second before, so a message lost to an overrun
/// costs nothing but the wait for the next one or for the transport's slow look.
enum InterfaceEvents {
    /// The groups: a link up or down, an IPv4 address added or removed, an IPv4 route changed.
    static let groups = UInt32(RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE)

    /// Subscribes on `loop`; `heard` runs on it for each message. The channel closes on a read
    /// error (an overrun's ENOBUFS among them); its `closeFuture` says so. Fails when the socket
    /// cannot be made or bound, as where netlink is not allowed.
    static func subscribe(on loop: any EventLoop, heard: @escaping @Sendable () -> Void) -> EventLoopFuture<any Channel> {
        loop.preconditionInEventLoop()
        #if os(Linux)
        let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard descriptor >= 0 else {
            return loop.makeFailedFuture(IOError(errnoCode: errno, reason: "socket(AF_NETLINK)"))
        }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            return loop.makeFailedFuture(IOError(errnoCode: code, reason: "bind(AF_NETLINK)"))
        }
        return NIOPipeBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Listener(heard: heard))
                }
            }
            .takingOwnershipOfDescriptor(input: descriptor)
            .flatMapErrorThrowing { error in
                close(descriptor)  // not taken: still ours
                throw error
            }
        #else
        return loop.makeFailedFuture(ChannelError.operationUnsupported)
        #endif
    }

    /// Each message read is a change heard; its bytes are dropped.
    final class Listener: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let heard: @Sendable () -> Void

        init(heard: @escaping @Sendable () -> Void) {
            self.heard = heard
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            heard()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
