import Foundation

/// What the fault tests do to a lab beyond `Lab` itself: loss, a second interface, and the
/// kernel's UDP counters.
extension Lab {
    /// Makes host `host` drop `percent` % of the UDP it receives (nftables); 0 removes the rule.
    /// Skips the test (saying why) when `nft` is missing.
    func setLoss(host: Int, percent: Int) throws {
        guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
        try Command.run([Lab.script, "loss", name, String(host), String(percent)])
    }

    /// How many packets host `host`'s loss rule dropped so far.
    func drops(host: Int) throws -> Int {
        let result = try Command.run([Lab.script, "drops", name, String(host)])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Makes host `host` drop `percent` % of the IPv4 frames arriving on its v0, before IP
    /// reassembly (`netlab frameloss`: each fragment and each TCP segment on its own, as a radio
    /// link loses them); 0 removes the rule. Skips the test (saying why) when `nft` is missing.
    func setFrameLoss(host: Int, percent: Int) throws {
        guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
        try Command.run([Lab.script, "frameloss", name, String(host), String(percent)])
    }

    /// How many frames host `host`'s frame-loss rule dropped so far.
    func frameDrops(host: Int) throws -> Int {
        let result = try Command.run([Lab.script, "framedrops", name, String(host)])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The namespace of the lab's bridge (`br0`, whose port `pI` leads to host I).
    var bridgeNamespace: String { "\(name)-lan" }

    /// Gives host `host` a second interface `interface` with address `cidr`, on a bridge with no peers.
    func addInterface(host: Int, _ interface: String, cidr: String) throws {
        try Command.run([Lab.script, "addif", name, String(host), interface, cidr])
    }

    /// Packets the links on the way to host `host` dropped: `rx_dropped` and `tx_dropped` of every
    /// interface in the host and in the bridge's namespace (a veth whose peer's queue was full
    /// counts there, not in `/proc/net/softnet_stat`), by namespace and interface.
    func linkDrops(host: Int) throws -> [String: Int] {
        var drops: [String: Int] = [:]
        for namespace in [namespace(host: host), bridgeNamespace] {
            let text = try Command.run(["ip", "netns", "exec", namespace, "ip", "-s", "-j", "link", "show"]).output
            let links = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
            for link in links {
                guard let name = link["ifname"] as? String, let stats = link["stats64"] as? [String: Any] else { continue }
                let rx = (stats["rx"] as? [String: Any])?["dropped"] as? Int ?? 0
                let tx = (stats["tx"] as? [String: Any])?["dropped"] as? Int ?? 0
                drops["\(namespace.hasSuffix("-lan") ? "lan" : "h\(host)")/\(name)"] = rx + tx
            }
        }
        return drops
    }

    /// Host `host`'s UDP counters from `/proc/net/snmp` (`InDatagrams`, `RcvbufErrors`, …).
    func udpCounters(host: Int) throws -> [String: Int] {
        let text = try Command.run(command(host: host, ["cat", "/proc/net/snmp"])).output
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("Udp: ") }
        guard rows.count >= 2 else { return [:] }
        let names = rows[0].split(separator: " ").dropFirst().map(String.init)
        let values = rows[1].split(separator: " ").dropFirst().map { Int($0) ?? 0 }
        return Dictionary(zip(names, values), uniquingKeysWith: { a, _ in a })
    }
}

/// The kernel's view of one process's UDP sockets.
enum SocketDrops {
    /// Datagrams the kernel dropped for `pid`'s UDP sockets because their receive buffers were
    /// full (the `drops` column of `/proc/PID/net/udp`, for the sockets among its descriptors).
    static func udp(pid: pid_t) -> Int {
        let fdFolder = "/proc/\(pid)/fd"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: fdFolder)) ?? []
        var inodes = Set<String>()
        for fd in descriptors {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: fdFolder + "/" + fd),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        guard let table = try? String(contentsOfFile: "/proc/\(pid)/net/udp", encoding: .utf8) else { return 0 }
        var drops = 0
        for row in table.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: " ")
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
            guard columns.count >= 13, inodes.contains(String(columns[9])) else { continue }
            drops += Int(columns[12]) ?? 0
        }
        return drops
    }
}
