import Foundation

/// A LAN of network namespaces made with `scripts/netlab` for one test: hosts `NAME-h1…NAME-hN`
/// at `10.77.0.(10+i)` on a bridge, with nothing attached to the machine's own interfaces, so
/// no multicast datagram leaves the machine. Always `defer { lab.down() }` right after making it.
final class Lab {
    /// The lab's unique name; its namespaces are `NAME-lan` and `NAME-h1…NAME-hN`.
    let name: String
    /// How many hosts it has.
    let hosts: Int
    /// Two sites joined only by a router (`netlab sites`): odd hosts on one subnet, even hosts on
    /// the other, and a router namespace `NAME-r` that forwards unicast but not multicast.
    let isSites: Bool

    /// `scripts/netlab` in this repository.
    static let script = Binaries.repositoryRoot.appendingPathComponent("scripts/netlab").path

    /// Why labs cannot be made here, or nil when they can (root and a working `ip netns add`).
    static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "not running as root (network namespaces need CAP_SYS_ADMIN)" }
        guard FileManager.default.isExecutableFile(atPath: script) else { return "\(script) is missing" }
        do {
            try Command.run([script, "ok"])
        } catch {
            return "\(error)"
        }
        return nil
    }()

    /// Makes a lab of `hosts` hosts; skips the test (saying why) when labs cannot be made here.
    init(hosts: Int, sites: Bool = false) throws {
        try Lab.requireUsable()
        self.name = "e2e" + String(UInt64.random(in: 0...UInt64(UInt32.max) << 8), radix: 36)
        self.hosts = hosts
        self.isSites = sites
        do {
            try Command.run([Lab.script, sites ? "sites" : "up", name, String(hosts)])
        } catch {
            down()
            throw error
        }
    }

    /// Skips the test (saying why) when labs cannot be made here.
    static func requireUsable() throws {
        if let reason = unavailableReason { try skip("network-namespace lab unavailable: \(reason)") }
    }

    /// The namespace of host `host` (1-based).
    func namespace(host: Int) -> String { "\(name)-h\(host)" }

    /// The address of host `host` on the lab's bridge (with sites, even hosts are on 10.77.1.0/24).
    func address(host: Int) -> String { isSites && host % 2 == 0 ? "10.77.1.\(10 + host)" : "10.77.0.\(10 + host)" }

    /// The router's address on site A (with sites): where a broker on the router is reached from both.
    var routerAddress: String { "10.77.0.1" }

    /// `arguments` prefixed so that they run in the router namespace (with sites).
    func routerCommand(_ arguments: [String]) -> [String] {
        ["ip", "netns", "exec", "\(name)-r"] + arguments
    }

    /// `arguments` prefixed so that they run in host `host`.
    func command(host: Int, _ arguments: [String]) -> [String] {
        ["ip", "netns", "exec", namespace(host: host)] + arguments
    }

    /// Host `host` takes a new lease: `address` (/24) comes, its own goes (kept by promotion, as a
    /// DHCP client's renumbering leaves it), and the multicast route follows.
    func renumber(host: Int, to address: String) throws {
        for arguments in [
            ["sysctl", "-qw", "net.ipv4.conf.v0.promote_secondaries=1"],
            ["ip", "addr", "add", "\(address)/24", "dev", "v0"],
            ["ip", "addr", "del", "\(self.address(host: host))/24", "dev", "v0"],
            ["ip", "route", "replace", "224.0.0.0/4", "dev", "v0"],
        ] {
            try Command.run(command(host: host, arguments))
        }
    }

    /// Removes every namespace of the lab; safe to call again.
    func down() {
        E2E.trace("lab \(name) down")
        _ = try? Command.run([Lab.script, "down", name], check: false)
    }
}
