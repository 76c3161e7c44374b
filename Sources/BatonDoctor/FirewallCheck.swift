import FoundationEssentials

/// `baton doctor`'s firewall check: reads the rules of nftables and iptables when it may, and
/// names what stops any port Baton uses (`BatonPort`): the datagram port and group, pairing's
/// UDP and TCP port, and the state stream's TCP port. `FirewallRuleset` reads the rules.
package enum FirewallCheck {
    package static let name = "firewall"

    /// One tool's rules, or why they could not be read.
    package struct Reading: Sendable {
        /// `nftables` or `iptables`.
        package var tool: String
        /// The rules text, or nil.
        package var rules: String?
        /// Why the rules could not be read, when they could not.
        package var failure: String?

        package init(tool: String, rules: String? = nil, failure: String? = nil) {
            self.tool = tool
            self.rules = rules
            self.failure = failure
        }

        /// The rules, chain by chain, when they were read.
        package var ruleset: FirewallRuleset? {
            rules.map { tool == "nftables" ? FirewallRuleset.nftables($0) : FirewallRuleset.iptables($0) }
        }
    }

    /// What doctor saw get through, which outranks any reading of rule text.
    package struct Evidence: Equatable, Sendable {
        /// The self-test's probe came back to the group port through the kernel's input path.
        package var probeReturned: Bool
        /// Datagrams from other machines arrived on the port while doctor listened.
        package var heardOthers: Bool

        package init(probeReturned: Bool = false, heardOthers: Bool = false) {
            self.probeReturned = probeReturned
            self.heardOthers = heardOthers
        }

        package static let none = Evidence()

        /// Whether the datagram port is known to pass.
        package var passes: Bool { probeReturned || heardOthers }

        /// What got through, as a clause: `the self-test's probe came back through the firewall`.
        func saw(port: Int) -> String {
            probeReturned ? "the self-test's probe came back through the firewall" : "datagrams from other machines arrived on UDP \(port)"
        }
    }

    /// The finding for the datagram port alone.
    package static func finding(_ readings: [Reading], port: Int, group: String, evidence: Evidence = .none) -> DoctorFinding {
        finding(readings, ports: [BatonPort(.udp, port, .datagrams)], group: group, evidence: evidence)
    }

    /// One port the rules stop, and what stops it.
    struct Block {
        var port: BatonPort
        var tool: String
        var state: FirewallRuleset.PortState
        /// The rules that stop it.
        var ruleset: FirewallRuleset
    }

    /// The finding from what the tools printed (or why they could not) about every port in
    /// `ports`, weighed against what got through: a reading of the datagram port that `evidence`
    /// contradicts is at most a warning, never a problem. The fix names each port to allow.
    ///
    /// A drop of a port is a problem; so is a default deny of pairing or the state stream, which
    /// nothing else tests. A default deny of the datagram port is a warning: the self-test tells.
    package static func finding(
        _ readings: [Reading], ports: [BatonPort], group: String, evidence: Evidence = .none
    ) -> DoctorFinding {
        let read = readings.filter { $0.rules != nil }
        let unread = readings.filter { $0.rules == nil }
        if read.isEmpty {
            let why = unread.compactMap { r in r.failure.map { "\(r.tool): \($0)" } }.joined(separator: "; ")
            return DoctorFinding(
                name: name, status: .skipped,
                detail: "could not read the firewall (\(why.isEmpty ? "no nft or iptables found" : why)); the self-test below still shows whether it lets Baton through",
                fix: "look for rules on \(labels(ports, joinedBy: "and")): `sudo nft list ruleset` or `sudo iptables -S`")
        }
        var blocks: [Block] = []
        var notes: [String] = []
        let datagramPort = ports.first { $0.role == .datagrams }?.number ?? 0
        for port in ports {
            for reading in read {
                guard let ruleset = reading.ruleset else { continue }
                let state = ruleset.state(of: port, group: group)
                guard state != .open else { continue }
                if port.role == .datagrams, evidence.passes {
                    if case .dropped(let rule, let place) = state {
                        notes.append("\(reading.tool) has `\(rule)` (in \(place)), but \(evidence.saw(port: datagramPort)), "
                            + "so that rule does not stop Baton here")
                    }
                } else {
                    blocks.append(Block(port: port, tool: reading.tool, state: state, ruleset: ruleset))
                }
                break
            }
        }
        if blocks.isEmpty {
            if !notes.isEmpty { return DoctorFinding(name: name, status: .warning, detail: notes.joined(separator: "; ")) }
            let names = read.map(\.tool).joined(separator: " and ")
            let also = unread.compactMap { r in r.failure.map { "; \(r.tool) could not be read (\($0))" } }.joined()
            let datagrams = ports.filter { $0.role == .datagrams }.map { "UDP \($0.number ?? 0) or \(group)" }
            let others = ports.filter { $0.role != .datagrams }
            let list = datagrams + (others.isEmpty ? [] : [labels(others, joinedBy: "or")])
            return DoctorFinding(name: name, status: .ok, detail: "\(names): no rule drops \(list.joined(separator: ", "))\(also)")
        }
        let quiet = blocks.allSatisfy { block in
            if case .closedByDefault = block.state { block.port.role == .datagrams } else { false }
        }
        var parts: [String] = []
        for (key, members) in grouped(blocks, by: { block -> String? in
            if case .dropped(let rule, let place) = block.state { "\(block.tool) drops\u{0}\(rule)\u{0}\(place)" } else { nil }
        }) {
            let fields = key.split(separator: "\u{0}", omittingEmptySubsequences: false)
            parts.append("\(fields[0]) \(labels(members.map(\.port), joinedBy: "and")): `\(fields[1])` (in \(fields[2]))")
        }
        for (key, members) in grouped(blocks, by: { block -> String? in
            if case .closedByDefault(let place) = block.state { "\(block.tool) drops incoming traffic by default (\(place))" } else { nil }
        }) {
            parts.append("\(key) and no rule allows \(labels(members.map(\.port), joinedBy: "or"))")
        }
        return DoctorFinding(
            name: name, status: quiet ? .warning : .problem, detail: (parts + notes).joined(separator: "; "),
            fix: fix(blocks, ports: ports))
    }

    /// What to run: one `insert` (or `iptables -I`) per chain and protocol, naming each port, ahead
    /// of any drop; for a state stream on any free port, the port to fix it to.
    static func fix(_ blocks: [Block], ports: [BatonPort]) -> String {
        let stream = suggestedStreamPort(ports)
        var streamAllowed = false
        var allow: [(tool: String, place: String, transport: BatonPort.Transport, numbers: [Int])] = []
        var dropped: Set<String> = []
        for block in blocks {
            let place: String
            switch block.state {
            case .dropped(let rule, let at):
                dropped.insert(rule + "\u{0}" + at)
                place = at
            case .closedByDefault(let at):
                place = at
            case .open:
                continue
            }
            var number = block.port.number
            if number == nil {
                if block.ruleset.state(of: BatonPort(.tcp, stream, .stateStream), group: "") == .open {
                    streamAllowed = true
                    continue
                }
                number = stream
            }
            guard let number else { continue }
            if let index = allow.firstIndex(where: { $0.tool == block.tool && $0.place == place && $0.transport == block.port.transport }) {
                if !allow[index].numbers.contains(number) { allow[index].numbers.append(number) }
            } else {
                allow.append((block.tool, place, block.port.transport, [number]))
            }
        }
        let keep = "keep the state stream on that port: `baton --stream-port \(stream)` (or BATON_STREAM_PORT=\(stream))"
        guard !allow.isEmpty else {
            return "run baton with `--stream-port \(stream)` (or BATON_STREAM_PORT=\(stream)): the firewall already allows TCP \(stream)"
        }
        let commands = allow.map { entry -> String in
            let numbers = entry.numbers.sorted()
            let proto = entry.transport.rawValue.lowercased()
            if entry.tool == "nftables" {
                let set = numbers.count == 1 ? "\(numbers[0])" : "{ \(numbers.map(String.init).joined(separator: ", ")) }"
                return "`sudo nft insert rule \(entry.place) \(proto) dport \(set) accept`"
            }
            return numbers.count == 1
                ? "`sudo iptables -I \(entry.place) -p \(proto) --dport \(numbers[0]) -j ACCEPT`"
                : "`sudo iptables -I \(entry.place) -p \(proto) -m multiport --dports \(numbers.map(String.init).joined(separator: ",")) -j ACCEPT`"
        }
        let many = Set(allow.flatMap { entry in entry.numbers.map { "\(entry.transport)\($0)" } }).count > 1
        var text = switch dropped.count {
        case 0: many ? "allow them: " : "allow it: "
        case 1: "remove that rule, or allow Baton ahead of it: "
        default: "remove those rules, or allow Baton ahead of them: "
        }
        text += commands.joined(separator: " and ")
        if dropped.isEmpty {
            // ufw: one port for both protocols when both are to be allowed.
            var numbers: [Int] = []
            var transports: [Int: Set<BatonPort.Transport>] = [:]
            for entry in allow {
                for number in entry.numbers {
                    if transports[number] == nil { numbers.append(number) }
                    transports[number, default: []].insert(entry.transport)
                }
            }
            let ufw = numbers.map { number in
                let both = transports[number]!.count == 2
                return "`sudo ufw allow \(number)\(both ? "" : "/" + transports[number]!.first!.rawValue.lowercased())`"
            }
            text += " (or \(ufw.joined(separator: " and ")))"
        }
        if blocks.contains(where: { $0.port.number == nil }), !streamAllowed { text += "; and \(keep)" }
        return text
    }

    /// A TCP port for the state stream to suggest: the first after the datagram port that Baton does not use already.
    package static func suggestedStreamPort(_ ports: [BatonPort]) -> Int {
        let used = Set(ports.compactMap(\.number))
        var candidate = (ports.first { $0.role == .datagrams }?.number ?? 47788) + 1
        while used.contains(candidate) || candidate > 65_535 {
            candidate = candidate > 65_535 ? 1024 : candidate + 1
        }
        return candidate
    }

    /// `UDP 47788`, `UDP and TCP 47790 (pairing)`, `the state stream's TCP port (any free one at
    /// each start)`, listed with commas and `last` (`or`, `and`) before the last one.
    static func labels(_ ports: [BatonPort], joinedBy last: String) -> String {
        var items: [String] = []
        var done: [BatonPort] = []
        for port in ports where !done.contains(where: { $0.role == port.role && $0.number == port.number }) {
            let same = ports.filter { $0.role == port.role && $0.number == port.number }
            done += same
            let transports = same.map(\.transport.rawValue).joined(separator: " and ")
            if let number = port.number {
                items.append(port.role == .datagrams ? "\(transports) \(number)" : "\(transports) \(number) (\(port.role.rawValue))")
            } else {
                items.append("the \(port.role.rawValue)'s \(transports) port (any free one at each start)")
            }
        }
        guard let final = items.popLast() else { return "" }
        return items.isEmpty ? final : "\(items.joined(separator: ", ")) \(last) \(final)"
    }

    /// `items` in groups by `key` (nil: left out), each group where its first member was.
    static func grouped<Item>(_ items: [Item], by key: (Item) -> String?) -> [(String, [Item])] {
        var groups: [(String, [Item])] = []
        for item in items {
            guard let name = key(item) else { continue }
            if let index = groups.firstIndex(where: { $0.0 == name }) {
                groups[index].1.append(item)
            } else {
                groups.append((name, [item]))
            }
        }
        return groups
    }
}
