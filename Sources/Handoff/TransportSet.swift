/// Several transports as one: every datagram goes out on each, and whatever arrives on any of
/// them reaches the one handler. Baton runs the LAN (multicast and unicast) beside a relay this
/// way; the receiver tells the copies apart by sequence (`duplicate`, PROTOCOL.md section 7).
public final class TransportSet: ActivityTransport {
    /// The transports, in the order they are sent on.
    public let members: [any ActivityTransport]

    public init(_ members: [any ActivityTransport]) {
        self.members = members
    }

    public func start(_ handler: TransportHandler) {
        for member in members {
            member.start(
                TransportHandler(
                    deliver: handler.deliver,
                    sendFailed: handler.sendFailed,
                    statusChanged: { [weak self] _ in
                        guard let self else { return }
                        handler.statusChanged(self.status)
                    }))
        }
    }

    public func send(_ bytes: [UInt8]) {
        for member in members { member.send(bytes) }
    }

    public func close() async {
        for member in members { await member.close() }
    }

    public var endpointDescription: String { members.map(\.endpointDescription).joined(separator: " + ") }

    public var status: TransportStatus { TransportStatus(paths: members.flatMap(\.status.paths)) }
}
