/// A port Baton uses, as `baton doctor`'s firewall check looks for it.
package struct BatonPort: Hashable, Sendable {
    package enum Transport: String, Hashable, Sendable {
        case udp = "UDP"
        case tcp = "TCP"
    }

    /// What the port is for.
    package enum Role: String, Hashable, Sendable {
        /// The protocol's datagrams (`--port`, UDP 47788), to the group and by unicast.
        case datagrams
        /// `baton pair`: HELLOs by UDP to the group, the exchange by TCP, on one port (47790).
        case pairing
        /// The state stream of large activities (`--stream-port`, TCP).
        case stateStream = "state stream"
    }

    package var transport: Transport
    /// The port, or nil when Baton takes any free one at each start (`--stream-port 0`).
    package var number: Int?
    package var role: Role

    package init(_ transport: Transport, _ number: Int?, _ role: Role) {
        self.transport = transport
        self.number = number
        self.role = role
    }

    /// Whether datagrams to this port also go to the multicast group.
    package var multicast: Bool { transport == .udp }

    /// Every port Baton uses: the datagram port, pairing's UDP and TCP port, and the state
    /// stream's TCP port (`stream` 0: any free one at each start).
    package static func all(datagrams: Int, pairing: Int, stream: Int) -> [BatonPort] {
        [
            BatonPort(.udp, datagrams, .datagrams), BatonPort(.udp, pairing, .pairing), BatonPort(.tcp, pairing, .pairing),
            BatonPort(.tcp, stream == 0 ? nil : stream, .stateStream),
        ]
    }
}
