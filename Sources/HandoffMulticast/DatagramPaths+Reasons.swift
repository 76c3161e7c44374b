import NIOCore
import NIOPosix

extension DatagramPaths {
    /// What the interfaces look like now, as far as multicast cares: each device's name, IPv4
    /// address and MULTICAST flag, and the source address of the route to the group. A change in
    /// any of them sets multicast up again.
    static func interfaceSignature(group: SocketAddress) -> String {
        let devices = (try? System.enumerateDevices()) ?? []
        var parts = devices.compactMap { device -> String? in
            guard case .v4 = device.address, let ip = device.address?.ipAddress else { return nil }
            return "\(device.name)=\(ip)\(device.multicastSupported ? "+m" : "")"
        }
        parts.sort()
        let route = InterfaceChoice.routeSourceAddress(to: group).map { String(UInt32(bigEndian: $0.s_addr), radix: 16) }
        parts.append("route=\(route ?? "none")")
        return parts.joined(separator: ",")
    }

    /// A few words for a status line: why multicast cannot be set up on the chosen interface.
    static func shortReason(_ error: MulticastError) -> String {
        switch error {
        case .interfaceNotMulticast(let name): "\(name) has no MULTICAST flag"
        case .interfaceHasNoIPv4(let name, _): "\(name) has no IPv4 address"
        case .interfaceNotFound(let name, _): "there is no interface \(name)"
        case .interfacesUnavailable(let reason): "cannot list the interfaces (\(reason))"
        default: error.description
        }
    }

    /// Why joining the group failed, in a few words.
    static func joinReason(_ error: any Error, interface: String?, named: Bool) -> String {
        let place = interface.map { " on \($0)" } ?? ""
        if let io = error as? IOError {
            switch io.errnoCode {
            case ENODEV where !named: return "no multicast route"
            case ENODEV, EADDRNOTAVAIL: return "cannot join\(place): the interface is down or has no address"
            case ENOBUFS: return "cannot join\(place): too many groups joined"
            default: break
            }
        }
        return "cannot join\(place): \(MulticastError.reason(for: error))"
    }

    /// Why a send to the group failed, in a few words.
    static func sendReason(_ error: any Error) -> String {
        if let io = error as? IOError {
            switch io.errnoCode {
            case EPERM, EACCES: return "a firewall refuses it"
            case ENETUNREACH: return "no route to the group"
            case EADDRNOTAVAIL, EINVAL: return "the interface's address went away"
            case ENODEV: return "the interface went away"
            default: break
            }
        }
        return "sending failed: \(MulticastError.reason(for: error))"
    }
}
