/// A multicast setting that cannot be used, with where it came from and what would work.
public enum MulticastConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `value` (from `source`, e.g. `BATON_GROUP` or `--group`) is not an IPv4 multicast
    /// address (224.0.0.0 to 239.255.255.255 in dotted decimal).
    case notMulticastGroup(source: String, value: String)
    /// `value` (from `source`) is not a UDP port number from 1 to 65535.
    case invalidPort(source: String, value: String)
    /// `value` (from `source`) is not a multicast TTL from 0 to 255.
    case invalidTTL(source: String, value: String)
    /// `value` (from `source`) is not usable as a network interface name.
    case invalidInterfaceName(source: String, value: String)
    /// A unicast peer's address is not dotted-decimal IPv4.
    case invalidPeer(value: String)

    public var description: String {
        switch self {
        case .notMulticastGroup(let source, let value):
            "\(source) is \"\(value)\", which is not an IPv4 multicast address; "
                + "use one from 224.0.0.0 to 239.255.255.255, e.g. \(MulticastConfiguration.defaultGroup)."
        case .invalidPort(let source, let value):
            "\(source) is \"\(value)\", which is not a UDP port; use a whole number from 1 to 65535, "
                + "e.g. \(MulticastConfiguration.defaultPort)."
        case .invalidTTL(let source, let value):
            "\(source) is \"\(value)\", which is not a multicast TTL; use a whole number from 0 to 255 "
                + "(\(MulticastConfiguration.defaultTTL) keeps datagrams on the local network)."
        case .invalidInterfaceName(let source, let value):
            "\(source) is \"\(value)\", which is not an interface name; use a name that `ip link` lists, "
                + "e.g. eth0 (1 to 15 characters, no spaces or slashes)."
        case .invalidPeer(let value):
            "peer \"\(value)\" is not an IPv4 address and port; resolve names with UnicastPeers.resolve first."
        }
    }
}
