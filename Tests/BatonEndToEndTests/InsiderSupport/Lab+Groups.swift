import Foundation

extension Lab {
    /// How many sockets in host `host` have joined Baton's group (the `Users` of 239.255.77.88 in the
    /// host's `/proc/net/igmp`, over all its interfaces): a program has joined once it counts.
    func groupMembers(host: Int) throws -> Int {
        let text = try Command.run(command(host: host, ["cat", "/proc/net/igmp"])).output
        // The group as /proc/net/igmp writes it: the address's four bytes in host (little-endian) order.
        let group = "584DFFEF"
        return text.split(separator: "\n").reduce(0) { total, line in
            let columns = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard columns.count >= 2, columns[0] == group, let users = Int(columns[1]) else { return total }
            return total + users
        }
    }

    /// Waits until `count` sockets in host `host` have joined the group.
    func waitForGroupMembers(host: Int, count: Int, timeout: Double = 10) throws {
        try Wait.until("\(count) members of the group on h\(host)", timeout: timeout, interval: 0.05) {
            try groupMembers(host: host) >= count
        }
    }
}
