/// Where and how a `MulticastTransport` sends and listens: group, port, TTL, interface, loop.
public struct MulticastConfiguration: Equatable, Sendable {
    /// The protocol's multicast group, administratively scoped.
    public static let defaultGroup = "239.255.77.88"
    /// The protocol's UDP port.
    public static let defaultPort = 47788
    /// The protocol's TTL: the local network segment only.
    public static let defaultTTL = 1

    /// The environment variable naming the group.
    public static let groupVariable = "BATON_GROUP"
    /// The environment variable naming the port.
    public static let portVariable = "BATON_PORT"
    /// The environment variable naming the TTL.
    public static let ttlVariable = "BATON_TTL"
    /// The environment variable naming the interface.
    public static let interfaceVariable = "BATON_INTERFACE"

    /// The IPv4 multicast group in dotted decimal, e.g. `239.255.77.88`.
    public var group: String
    /// The UDP port every peer binds and sends to, 1…65535.
    public var port: Int
    /// The multicast TTL, 0…255; 1 keeps datagrams on the local segment.
    public var ttl: Int
    /// The interface to join and send on (e.g. `eth0`), or nil for the kernel's choice.
    public var interface: String?
    /// Whether this host's own datagrams come back to its sockets, so peers on one machine see each other.
    public var loopback: Bool
    /// Peers sent every datagram by unicast as well, from the same socket: for networks where
    /// multicast does not pass (`--peer`, `BATON_PEERS`, the `peers` file).
    public var peers: [UnicastPeer]
    /// Listed peers whose names did not resolve at start: skipped for now, and resolved again
    /// every `UnicastPeers.retryInterval` by the transport, which sends to them once they do.
    public var unresolvedPeers: [UnicastPeerEntry] = []

    /// A configuration; the defaults are the protocol's.
    public init(
        group: String = MulticastConfiguration.defaultGroup,
        port: Int = MulticastConfiguration.defaultPort,
        ttl: Int = MulticastConfiguration.defaultTTL,
        interface: String? = nil,
        loopback: Bool = true,
        peers: [UnicastPeer] = []
    ) {
        self.group = group
        self.port = port
        self.ttl = ttl
        self.interface = interface
        self.loopback = loopback
        self.peers = peers
    }

    /// Reads `BATON_GROUP`, `BATON_PORT`, `BATON_TTL` and `BATON_INTERFACE` over the defaults.
    ///
    /// A variable that is missing or empty keeps the default; a value that is set but
    /// unusable is an error naming the variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(MulticastConfigurationError)
        -> MulticastConfiguration
    {
        func value(_ name: String) -> String? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            return text
        }
        var configuration = MulticastConfiguration()
        if let text = value(groupVariable) {
            configuration.group = try parseGroup(text, source: groupVariable)
        }
        if let text = value(portVariable) {
            configuration.port = try parsePort(text, source: portVariable)
        }
        if let text = value(ttlVariable) {
            configuration.ttl = try parseTTL(text, source: ttlVariable)
        }
        if let text = value(interfaceVariable) {
            configuration.interface = try parseInterfaceName(text, source: interfaceVariable)
        }
        return configuration
    }

    /// Checks values set in code the way `fromEnvironment` checks text.
    public func validated() throws(MulticastConfigurationError) -> MulticastConfiguration {
        _ = try Self.parseGroup(group, source: "group")
        guard (1...65535).contains(port) else { throw .invalidPort(source: "port", value: String(port)) }
        guard (0...255).contains(ttl) else { throw .invalidTTL(source: "ttl", value: String(ttl)) }
        if let interface {
            _ = try Self.parseInterfaceName(interface, source: "interface")
        }
        for peer in peers {
            guard Self.octets(of: peer.address) != nil else { throw .invalidPeer(value: peer.description) }
            guard (1...65535).contains(peer.port) else { throw .invalidPort(source: "peer", value: String(peer.port)) }
        }
        return self
    }

    /// The group's four octets, or nil when `group` is not dotted-decimal IPv4.
    var groupOctets: [UInt8]? { Self.octets(of: group) }

    /// Accepts an IPv4 multicast address in dotted decimal (224.0.0.0…239.255.255.255).
    public static func parseGroup(_ text: String, source: String) throws(MulticastConfigurationError) -> String {
        guard let octets = octets(of: text), (224...239).contains(octets[0]) else {
            throw .notMulticastGroup(source: source, value: text)
        }
        return text
    }

    /// Accepts a UDP port number, 1…65535.
    public static func parsePort(_ text: String, source: String) throws(MulticastConfigurationError) -> Int {
        guard text.allSatisfy(\.isASCIIDigit), let port = Int(text), (1...65535).contains(port) else {
            throw .invalidPort(source: source, value: text)
        }
        return port
    }

    /// Accepts a multicast TTL, 0…255.
    public static func parseTTL(_ text: String, source: String) throws(MulticastConfigurationError) -> Int {
        guard text.allSatisfy(\.isASCIIDigit), let ttl = Int(text), (0...255).contains(ttl) else {
            throw .invalidTTL(source: source, value: text)
        }
        return ttl
    }

    /// Accepts a network interface name as Linux allows it: 1…15 bytes, no whitespace or `/`.
    public static func parseInterfaceName(_ text: String, source: String) throws(MulticastConfigurationError)
        -> String
    {
        let bytes = Array(text.utf8)
        let usable = (1...15).contains(bytes.count)
            && !bytes.contains { $0 <= 0x20 || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") || $0 == 0x7F }
        guard usable else { throw .invalidInterfaceName(source: source, value: text) }
        return text
    }

    /// Strict dotted decimal: four parts, each 0…255, digits only, no leading zeros.
    private static func octets(of text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit),
                part.count == 1 || part.first != "0",
                let value = UInt8(part)
            else { return nil }
            octets.append(value)
        }
        return octets
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
