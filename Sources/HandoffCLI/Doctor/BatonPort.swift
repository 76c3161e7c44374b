/// A port Baton uses, as `baton doctor`'s firewall check looks for it.
public struct BatonPort: Hashable, Sendable {
    public enum Transport: String, Hashable, Sendable {
        case udp = "UDP"
        case tcp = "TCP"
    }

    /// What the port is for.
    public enum Role: String, Hashable, Sendable {
        /// The protocol's datagrams (`--port`, UDP 47788), to the group and by unicast.
        case datagrams
        /// `baton pair`: HELLOs by UDP to the group, the exchange by TCP, on one port (47790).
        case pairing
        /// The state stream of large activities (`--stream-port`, TCP).
        case stateStream = "state stream"
    }

    public var transport: Transport
    /// The port, or nil when Baton takes any free one at each start (`--stream-port 0`).
    public var number: Int?
    public var role: Role

    public init(_ transport: Transport, _ number: Int?, _ role: Role) {
        self.transport = transport
        self.number = number
        self.role = role
    }

    /// Whether datagrams to this port also go to the multicast group.
    public var multicast: Bool { transport == .udp }

    /// Every port Baton uses: the datagram port, pairing's UDP and TCP port, and the state
    /// stream's TCP port (`stream` 0: any free one at each start).
    public static func all(datagrams: Int, pairing: Int, stream: Int) -> [BatonPort] {
        [
            BatonPort(.udp, datagrams, .datagrams), BatonPort(.udp, pairing, .pairing), BatonPort(.tcp, pairing, .pairing),
            BatonPort(.tcp, stream == 0 ? nil : stream, .stateStream),
        ]
    }
}
