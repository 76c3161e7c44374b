import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A network interface as `baton doctor` sees it: its flags and IPv4 address.
package struct DoctorInterface: Equatable, Sendable {
    /// What kind of network an interface is likely to be, from its name.
    package enum Kind: Equatable, Sendable {
        /// A LAN: Ethernet, Wi-Fi, or anything not named below.
        case lan
        /// This machine only.
        case loopback
        /// A VPN or tunnel (tun, tap, wg, tailscale, zt, ppp, ipsec): multicast rarely passes.
        case vpn
        /// A bridge or veth of containers or virtual machines (docker, br-, veth, virbr, …):
        /// its peers are on this machine, not on the LAN.
        case virtual

        /// How a person would call it.
        package var label: String {
            switch self {
            case .lan: "LAN"
            case .loopback: "loopback"
            case .vpn: "VPN or tunnel"
            case .virtual: "container or VM bridge"
            }
        }
    }

    package var name: String
    package var up: Bool
    package var multicast: Bool
    package var loopback: Bool
    /// The first IPv4 address, dotted decimal, or nil.
    package var ipv4: String?

    package init(name: String, up: Bool, multicast: Bool, loopback: Bool = false, ipv4: String? = nil) {
        self.name = name
        self.up = up
        self.multicast = multicast
        self.loopback = loopback
        self.ipv4 = ipv4
    }

    /// Up, with the MULTICAST flag and an IPv4 address: Baton could join a group on it.
    package var canMulticast: Bool { up && multicast && ipv4 != nil }

    static let vpnPrefixes = ["tun", "tap", "wg", "tailscale", "zt", "ppp", "ipsec", "utun", "nordlynx", "proton"]
    static let virtualPrefixes = [
        "docker", "br-", "veth", "virbr", "lxcbr", "lxdbr", "cni", "flannel", "cali", "vboxnet", "vmnet", "podman",
        "vnet", "incusbr",
    ]

    /// Its kind, from the loopback flag and the name's prefix.
    package var kind: Kind {
        if loopback || name == "lo" { return .loopback }
        if Self.vpnPrefixes.contains(where: { name.hasPrefix($0) }) { return .vpn }
        if Self.virtualPrefixes.contains(where: { name.hasPrefix($0) }) { return .virtual }
        return .lan
    }

    /// How another machine could name this one: the IPv4 addresses of the interfaces that are
    /// up, LAN ones first, then VPN and virtual ones; no loopback. Empty when there are none.
    package static func addressesForOthers(_ interfaces: [DoctorInterface] = list()) -> [String] {
        let order: [Kind] = [.lan, .vpn, .virtual]
        return order.flatMap { kind in
            interfaces.filter { $0.up && $0.kind == kind }.compactMap(\.ipv4)
        }
    }

    /// `addressesForOthers` as a command-line word: the first address, or `HOST` when there is none.
    package static func addressForOthers(_ interfaces: [DoctorInterface] = list()) -> String {
        addressesForOthers(interfaces).first ?? "HOST"
    }

    /// This namespace's interfaces (getifaddrs), one entry per name, in the kernel's order.
    package static func list() -> [DoctorInterface] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var result: [DoctorInterface] = []
        var entry = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let namePointer = current.pointee.ifa_name else { continue }
            let name = String(cString: namePointer)
            let flags = Int32(bitPattern: current.pointee.ifa_flags)
            var address: String?
            if let socketAddress = current.pointee.ifa_addr, socketAddress.pointee.sa_family == sa_family_t(AF_INET) {
                address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var storage = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    var inAddress = pointer.pointee.sin_addr
                    guard inet_ntop(AF_INET, &inAddress, &storage, socklen_t(storage.count)) != nil else { return nil }
                    return String(decoding: storage.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                }
            }
            if let index = result.firstIndex(where: { $0.name == name }) {
                if result[index].ipv4 == nil { result[index].ipv4 = address }
            } else {
                result.append(DoctorInterface(
                    name: name, up: flags & Int32(IFF_UP) != 0,
                    multicast: flags & Int32(IFF_MULTICAST) != 0,
                    loopback: flags & Int32(IFF_LOOPBACK) != 0, ipv4: address))
            }
        }
        return result
    }
}

/// The two interface checks of `baton doctor`, as pure functions of what was found.
package enum InterfaceCheck {
    /// The check's names.
    package static let interfacesName = "interfaces"
    package static let othersName = "other interfaces"

    /// The LAN interface a fix should name: the first LAN one that can do multicast, else `eth0`.
    package static func suggestedLAN(_ interfaces: [DoctorInterface]) -> String {
        interfaces.first { $0.kind == .lan && $0.canMulticast }?.name ?? "eth0"
    }

    /// Which interfaces can do multicast, and which one Baton would join.
    ///
    /// - Parameters:
    ///   - chosen: what the transport would choose (`MulticastTransport.interfaceName(for:)`), or nil.
    ///   - choiceError: why it could not choose, when it could not (an unusable `--interface`).
    ///   - named: where the interface was named (`--interface`, `BATON_INTERFACE`), or nil for the kernel's choice.
    package static func interfaces(
        _ interfaces: [DoctorInterface], chosen: String?, choiceError: String? = nil, named: String? = nil
    ) -> DoctorFinding {
        let capable = interfaces.filter(\.canMulticast)
        let listed = capable.isEmpty
            ? "no interface is up with MULTICAST and an IPv4 address"
            : capable.map { "\($0.name) \($0.ipv4 ?? "")" }.joined(separator: ", ") + " can do multicast"
        if let choiceError {
            return DoctorFinding(name: interfacesName, status: .problem, detail: "\(listed); \(choiceError)",
                fix: "name a LAN interface that can do multicast: `baton --interface \(suggestedLAN(interfaces))`")
        }
        guard !capable.isEmpty else {
            let down = interfaces.first { $0.kind == .lan && !$0.canMulticast }
            let fix = down.map { interface in
                !interface.up ? "bring \(interface.name) up: `sudo ip link set \(interface.name) up`"
                    : !interface.multicast ? "`sudo ip link set \(interface.name) multicast on`"
                    : "connect \(interface.name) to the network (it has no IPv4 address)"
            } ?? "connect this machine to the LAN"
            return DoctorFinding(name: interfacesName, status: .problem, detail: listed, fix: fix)
        }
        let how = named.map { "named by \($0)" } ?? "the kernel's choice"
        guard let chosen else {
            return DoctorFinding(name: interfacesName, status: .warning,
                detail: "\(listed); which one the kernel would use could not be found",
                fix: "name the LAN: `baton --interface \(suggestedLAN(interfaces))`")
        }
        let chosenInterface = interfaces.first { $0.name == chosen }
        if chosenInterface?.kind == .loopback, capable.contains(where: { $0.kind == .lan }) {
            return DoctorFinding(name: interfacesName, status: .warning,
                detail: "\(listed); Baton joins \(chosen) (\(how)), which only this machine hears",
                fix: "name the LAN: `baton --interface \(suggestedLAN(interfaces))`")
        }
        return DoctorFinding(name: interfacesName, status: .ok, detail: "\(listed); Baton joins \(chosen) (\(how))")
    }

    /// VPN, container and VM interfaces: a problem when Baton would join one while a LAN
    /// interface could carry the group, else named so that a person knows they are there.
    package static func others(_ interfaces: [DoctorInterface], chosen: String?) -> DoctorFinding {
        let others = interfaces.filter { $0.kind == .vpn || $0.kind == .virtual }
        let names = others.map { "\($0.name) (\($0.kind.label))" }.joined(separator: ", ")
        if let chosen, let taken = others.first(where: { $0.name == chosen }) {
            let lan = interfaces.first { $0.kind == .lan && $0.canMulticast }
            return DoctorFinding(
                name: othersName, status: lan == nil ? .warning : .problem,
                detail: "the group goes to \(chosen), a \(taken.kind.label), so peers on the LAN do not hear Baton",
                fix: "name the LAN: `baton --interface \(lan?.name ?? suggestedLAN(interfaces))` (or BATON_INTERFACE=\(lan?.name ?? suggestedLAN(interfaces)))")
        }
        if others.isEmpty {
            return DoctorFinding(name: othersName, status: .ok, detail: "no VPN, container or VM interface")
        }
        return DoctorFinding(name: othersName, status: .ok,
            detail: "\(names) present, but Baton does not use \(others.count == 1 ? "it" : "them")")
    }
}
