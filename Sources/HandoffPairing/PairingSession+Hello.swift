import Handoff
import HandoffWire
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// The HELLO socket: UDP on the pairing port, joined to the group, and what a HELLO heard means.
extension PairingSession {
    /// UDP on all addresses at the port, shared (`SO_REUSEADDR`), joined to the group, TTL 1,
    /// loop on (two pairings on one machine see each other), sending on the named interface.
    func openHello() -> EventLoopFuture<Void> {
        let port = settings.port
        let group = settings.group
        return DatagramBootstrap(group: loop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HelloHandler(session: self))
                }
            }
            .bind(host: "0.0.0.0", port: port)
            .flatMapErrorThrowing { error in
                throw PairingSetupError("Cannot listen on UDP port \(port) for pairing: \(Self.reason(for: error)).")
            }
            .flatMap { channel in
                guard !self.ended else { return channel.close() }
                self.hello = channel
                channel.closeFuture.whenComplete { _ in
                    if self.hello === channel { self.hello = nil }
                }
                return self.joinGroup(channel, group: group)
            }
    }

    /// NIO closes a datagram socket on most send errors (a firewall's EPERM, an interface going
    /// down), where a failed send used to change nothing: the next HELLO tick opens it again,
    /// so the sharer goes on hearing other pairings. Each attempt that fails waits for the next tick.
    func reopenHello() {
        guard !ended, !reopeningHello else { return }
        reopeningHello = true
        openHello().whenComplete { result in
            self.reopeningHello = false
            if case .failure = result { self.hello?.close(promise: nil) }
        }
    }

    /// The membership and the sending interface by interface index (0: the kernel's choice),
    /// then TTL, loop and `IP_MULTICAST_ALL` off, whose failures do not matter.
    private func joinGroup(_ channel: any Channel, group: String) -> EventLoopFuture<Void> {
        guard let options = channel as? any SocketOptionProvider else {
            return loop.makeFailedFuture(PairingSetupError("Cannot join multicast group \(group): the socket offers no options."))
        }
        var request = ip_mreqn()
        inet_pton(AF_INET, group, &request.imr_multiaddr)
        var steps = loop.makeSucceededVoidFuture()
        if let interface = settings.interface {
            request.imr_ifindex = Int32(if_nametoindex(interface))
            let choice = request
            steps = options.unsafeSetSocketOption(level: .ip, name: .ip_multicast_if, value: choice)
                .flatMapErrorThrowing { error in
                    throw PairingSetupError("Cannot send multicast on \(interface): \(Self.reason(for: error)).")
                }
        }
        let membership = request
        return steps.flatMap {
            options.unsafeSetSocketOption(level: .ip, name: .ip_add_membership, value: membership)
                .flatMapErrorThrowing { error in
                    throw PairingSetupError(
                        "Cannot join multicast group \(group) (pairing needs multicast, or --peer HOST on the joining side): \(Self.reason(for: error)).")
                }
        }.flatMap {
            let extras = [
                options.setIPMulticastTTL(1),
                options.setIPMulticastLoop(1),
                channel.setOption(Self.multicastAll, value: 0),
            ]
            return EventLoopFuture.whenAllComplete(extras, on: self.loop).map { _ in }
        }
    }

    /// Without `IP_MULTICAST_ALL` off, Linux hands the socket every group anyone on the host joined on this port.
    static let multicastAll = ChannelOptions.Types.SocketOption(level: .ip, name: .init(rawValue: IP_MULTICAST_ALL))

    func sendHello() {
        guard let hello else { return reopenHello() }
        guard let destination = try? SocketAddress(ipAddress: settings.group, port: settings.port) else { return }
        let bytes = Pairing.hello(port: UInt16(settings.port), pairingID: pairingID)
        lastHelloWrite = hello.writeAndFlush(AddressedEnvelope(remoteAddress: destination, data: ByteBuffer(bytes: bytes)))
    }

    /// A datagram on the pairing port: anything but another pairing's HELLO is ignored; the
    /// first HELLO of another version is reported once.
    func heard(_ bytes: [UInt8], from source: SocketAddress) {
        if early != nil {
            if early!.count < 64 { early?.append((bytes, source)) }
            return
        }
        guard !ended else { return }
        if let version = Pairing.helloVersion(bytes), version != Pairing.version {
            guard !toldOtherVersion, let host = source.ipAddress else { return }
            toldOtherVersion = true
            continuation.yield(.otherVersion(host: host, version: version))
            return
        }
        guard let hello = Pairing.parseHello(bytes), hello.pairingID != pairingID else { return }
        if isSharer {
            // One more HELLO first: the other sharer, which sent the HELLO just heard, is listening
            // now, and hears why both stop (it may have started after this side's last one).
            sendHello()
            apply(machine.otherPairingSeen(from: source.ipAddress))
        } else if let chosen = chosenPairing {
            if chosen != hello.pairingID { apply(machine.otherPairingSeen(from: source.ipAddress)) }
        } else {
            chosenPairing = hello.pairingID
            guard let ip = source.ipAddress, let target = try? SocketAddress(ipAddress: ip, port: Int(hello.port)) else {
                return
            }
            continuation.yield(.found(host: ip, port: Int(hello.port)))
            connect(to: target).whenFailure { error in
                self.end(.unreachable((error as? PairingSetupError)?.description ?? "\(error)"))
            }
        }
    }
}
