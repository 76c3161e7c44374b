import NIOCore
import NIOPosix

/// The interface a transport joins and sends on, resolved on the transport's own thread.
///
/// Device lists and routes belong to a network namespace, and a thread may sit in
/// another namespace than the process (tests move the transport's thread into a lab),
/// so this is worked out on the event loop that then makes the socket.
struct InterfaceChoice: Sendable {
    /// The device named in the configuration, or nil to let the kernel choose.
    var device: NIONetworkDevice?
    /// The device's IPv4 address, for `IP_MULTICAST_IF`, when one was named.
    var address: in_addr?
    /// The interface's name: the named one, or the one the route to the group uses when that could be found.
    var name: String?
    /// The interface's IPv4 address as text, when known: what a status line shows, so a new lease is seen.
    var addressText: String?

    /// Looks up `name` among this namespace's devices, or, with no name, which device the kernel would use for `group`.
    static func resolve(named name: String?, group: SocketAddress) throws(MulticastError) -> InterfaceChoice {
        let devices: [NIONetworkDevice]
        do {
            devices = try System.enumerateDevices()
        } catch {
            throw .interfacesUnavailable(reason: MulticastError.reason(for: error))
        }
        let withIPv4 = devices.filter { $0.ipv4Address != nil }
        let available = Array(Set(withIPv4.map(\.name))).sorted()

        guard let name else {
            let chosen = defaultInterfaceName(for: group, among: withIPv4)
            let text = withIPv4.first { $0.name == chosen }?.address?.ipAddress
            return InterfaceChoice(device: nil, address: nil, name: chosen, addressText: text)
        }
        guard let device = withIPv4.first(where: { $0.name == name }), let address = device.ipv4Address else {
            let exists = devices.contains { $0.name == name } || if_nametoindex(name) != 0
            if exists {
                throw .interfaceHasNoIPv4(name: name, available: available)
            }
            throw .interfaceNotFound(name: name, available: available)
        }
        guard device.multicastSupported else {
            throw .interfaceNotMulticast(name: name)
        }
        return InterfaceChoice(device: device, address: address, name: name, addressText: device.address?.ipAddress)
    }

    /// The interface the kernel picks for traffic to `group` (best effort).
    ///
    /// Connecting a fresh UDP socket sends nothing but makes the kernel choose a route and
    /// a source address; the device holding that address is the one a join with no
    /// interface uses. Without an answer, the first multicast device that is not loopback.
    static func defaultInterfaceName(for group: SocketAddress, among devices: [NIONetworkDevice]) -> String? {
        if let source = routeSourceAddress(to: group), source.s_addr != 0,
            let device = devices.first(where: { $0.ipv4Address?.s_addr == source.s_addr })
        {
            return device.name
        }
        return devices.first { device in
            guard device.multicastSupported, let address = device.ipv4Address else { return false }
            return UInt32(bigEndian: address.s_addr) >> 24 != 127
        }?.name
    }

    /// The source address the routing table gives a datagram to `group`, or nil.
    static func routeSourceAddress(to group: SocketAddress) -> in_addr? {
        guard case .v4(let groupV4) = group else { return nil }
        #if os(Linux)
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_DGRAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }

        var destination = groupV4.address
        let connected = withUnsafePointer(to: &destination) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }

        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(descriptor, $0, &length)
            }
        }
        guard named == 0 else { return nil }
        return local.sin_addr
    }
}

extension NIONetworkDevice {
    /// The device's IPv4 address, when this entry has one.
    fileprivate var ipv4Address: in_addr? {
        guard case .v4(let address) = address else { return nil }
        return address.address.sin_addr
    }
}
