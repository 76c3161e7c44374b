/// Why the multicast transport could not start, send, or go on, with what to do about it.
public enum MulticastError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A setting in the configuration cannot be used.
    case invalidConfiguration(MulticastConfigurationError)
    /// No interface is called `name`; `available` lists the ones with an IPv4 address.
    case interfaceNotFound(name: String, available: [String])
    /// The interface `name` exists but has no IPv4 address; `available` lists those that have one.
    case interfaceHasNoIPv4(name: String, available: [String])
    /// The interface `name` lacks the MULTICAST flag, so nothing can join a group on it.
    case interfaceNotMulticast(name: String)
    /// The interfaces of this machine could not be listed.
    case interfacesUnavailable(reason: String)
    /// The UDP port could not be bound.
    case bindFailed(port: Int, reason: String)
    /// A socket option (`option`, e.g. `IP_MULTICAST_TTL`) could not be set.
    case socketOptionFailed(option: String, reason: String)
    /// Joining `group` failed, on `interface` or on the kernel's default one when nil.
    case joinFailed(group: String, interface: String?, reason: String)
    /// A datagram of `bytes` bytes exceeds `limit`, the most one UDP datagram can carry.
    case datagramTooLarge(bytes: Int, limit: Int)
    /// Sending one datagram failed.
    case sendFailed(destination: String, reason: String)
    /// The transport was closed; start a new one to go on.
    case closed
    /// The transport's event loop could not be set up.
    case startFailed(reason: String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let error):
            return error.description
        case .interfaceNotFound(let name, let available):
            return "There is no network interface named \"\(name)\"; "
                + "choose one with an IPv4 address (\(Self.list(available))) with --interface or BATON_INTERFACE."
        case .interfaceHasNoIPv4(let name, let available):
            return "The interface \"\(name)\" has no IPv4 address, which multicast needs; give it one "
                + "(`ip addr add … dev \(name)`) or choose another (\(Self.list(available)))."
        case .interfaceNotMulticast(let name):
            return "The interface \"\(name)\" cannot do multicast (no MULTICAST flag); choose another "
                + "interface, or enable it with `ip link set \(name) multicast on`."
        case .interfacesUnavailable(let reason):
            return "Could not list this machine's network interfaces (\(reason)); "
                + "try again without --interface to let the kernel choose."
        case .bindFailed(let port, let reason):
            return "Could not bind UDP port \(port) (\(reason)); another program may hold it without "
                + "SO_REUSEADDR: stop it or choose another port with --port or BATON_PORT."
        case .socketOptionFailed(let option, let reason):
            return "Could not set \(option) on the multicast socket (\(reason)); "
                + "check the configuration or choose another interface."
        case .joinFailed(let group, let interface, let reason):
            let place = interface.map { "on \"\($0)\"" } ?? "on the kernel's default interface"
            let advice = interface == nil
                ? "name an interface that is up with --interface, or add a multicast route "
                    + "(`ip route add 224.0.0.0/4 dev eth0`)"
                : "check that the interface is up and has an IPv4 address, or name another with --interface"
            return "Could not join multicast group \(group) \(place) (\(reason)); \(advice)."
        case .datagramTooLarge(let bytes, let limit):
            return "A datagram of \(bytes) bytes is larger than the \(limit) bytes UDP can carry; send less."
        case .sendFailed(let destination, let reason):
            return "Could not send to \(destination) (\(reason)); check that the interface is up "
                + "and has a route for multicast."
        case .closed:
            return "The multicast transport is closed; start a new one to send or receive."
        case .startFailed(let reason):
            return "Could not start the multicast transport (\(reason))."
        }
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none found" : names.joined(separator: ", ")
    }
}
