import FoundationEssentials

/// One tool's rules, chain by chain in the order the tool evaluates them, as `nft list ruleset`
/// or `iptables -S` printed them; and what they do to one of Baton's ports.
///
/// It reads rule text, so it guesses: it knows that the first rule of a chain that decides on a
/// port wins (an accept inserted ahead of a drop lets the port through), that an input chain
/// whose policy drops (or whose last word is a bare drop or reject) closes every port no rule
/// allows, and that an accept in a chain jumped to counts. It does not follow jumps in order,
/// named sets or marks. `baton doctor` trusts the self-test and what it hears over this.
package struct FirewallRuleset: Equatable, Sendable {
    package struct Rule: Equatable, Sendable {
        package enum Verdict: Sendable { case accept, drop, other }

        /// The rule as the tool printed it, trimmed.
        package var text: String
        /// accept, drop (drop or reject), or anything else (a jump, a log, a counter).
        package var verdict: Verdict

        package init(_ text: String, _ verdict: Verdict) {
            self.text = text
            self.verdict = verdict
        }
    }

    package struct Chain: Equatable, Sendable {
        /// nftables: `family table chain`, e.g. `inet filter input`; iptables: the chain, e.g. `INPUT`.
        package var place: String
        /// A base chain (nftables: it has a hook; iptables: a built-in chain), not one jumped to.
        package var base = false
        /// It filters what comes in to this host (nftables `hook input`, iptables `INPUT`).
        package var input = false
        /// What no rule decides is dropped (`policy drop`, `-P INPUT DROP`).
        package var dropsByDefault = false
        package var rules: [Rule] = []

        package init(place: String, base: Bool = false, input: Bool = false, dropsByDefault: Bool = false, rules: [Rule] = []) {
            self.place = place
            self.base = base
            self.input = input
            self.dropsByDefault = dropsByDefault
            self.rules = rules
        }
    }

    /// What the rules do to one port.
    package enum PortState: Equatable, Sendable {
        /// Nothing read here stops it.
        case open
        /// This rule drops or rejects it, and no earlier rule of its chain accepts it.
        case dropped(rule: String, place: String)
        /// This input chain drops what no rule accepts (its policy, or a bare drop), and no rule accepts it.
        case closedByDefault(place: String)
    }

    package var chains: [Chain]

    package init(chains: [Chain]) {
        self.chains = chains
    }

    // MARK: Reading the tools' text

    /// Reads `nft list ruleset` output.
    package static func nftables(_ text: String) -> FirewallRuleset {
        var chains: [Chain] = []
        var table = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmed(newlines: false)
            let words = line.split(separator: " ").map(String.init)
            if words.first == "table", words.count >= 3 {
                table = "\(words[1]) \(words[2])"
                continue
            }
            if words.first == "chain", words.count >= 2 {
                chains.append(Chain(place: "\(table) \(words[1])"))
                continue
            }
            guard !chains.isEmpty, !line.isEmpty, line != "}" else { continue }
            if line.hasPrefix("type "), line.contains(" hook ") {
                chains[chains.count - 1].base = true
                chains[chains.count - 1].input = line.contains("hook input")
                chains[chains.count - 1].dropsByDefault = line.contains("policy drop")
                continue
            }
            if line.hasPrefix("policy ") || line.hasPrefix("comment ") { continue }
            let verdict: Rule.Verdict = switch firstVerdict(words: unquoted(line), among: ["accept", "drop", "reject", "jump", "goto", "return", "queue", "continue"]) {
            case "accept": .accept
            case "drop", "reject": .drop
            default: .other
            }
            chains[chains.count - 1].rules.append(Rule(line, verdict))
        }
        return FirewallRuleset(chains: chains)
    }

    /// Reads `iptables -S` output.
    package static func iptables(_ text: String) -> FirewallRuleset {
        let builtIn: Set<String> = ["INPUT", "OUTPUT", "FORWARD", "PREROUTING", "POSTROUTING"]
        var chains: [Chain] = []
        func index(_ name: String) -> Int {
            if let found = chains.firstIndex(where: { $0.place == name }) { return found }
            chains.append(Chain(place: name, base: builtIn.contains(name), input: name == "INPUT"))
            return chains.count - 1
        }
        for raw in text.split(separator: "\n") {
            let line = raw.trimmed(newlines: false)
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 2 else { continue }
            switch words[0] {
            case "-P" where words.count >= 3:
                chains[index(words[1])].dropsByDefault = words[2] == "DROP"
            case "-N":
                _ = index(words[1])
            case "-A":
                let target = words.firstIndex(of: "-j").flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
                let verdict: Rule.Verdict = switch target {
                case "ACCEPT": .accept
                case "DROP", "REJECT": .drop
                default: .other
                }
                chains[index(words[1])].rules.append(Rule(line, verdict))
            default:
                break
            }
        }
        return FirewallRuleset(chains: chains)
    }

    // MARK: What the rules do to a port

    /// What these rules do to `port` (and, for UDP, to datagrams for `group`).
    ///
    /// A drop that names the port is the answer, unless an earlier rule of its chain accepts the
    /// port (or, for a drop that names only the group, the group). Then an input chain that drops
    /// by default closes the port, unless a rule ahead of that (in the chain, or in a chain jumped
    /// to) accepts it. A port of nil (any free one) is closed only by a default.
    package func state(of port: BatonPort, group: String) -> PortState {
        var closed: String?
        for chain in chains {
            var acceptedPort = false
            var acceptedGroup = false
            var cutOff = false
            for rule in chain.rules {
                let namesPort = Self.matches(rule.text, port: port)
                let namesGroup = Self.namesGroup(rule.text, port: port, group: group)
                switch rule.verdict {
                case .accept:
                    let broad = Self.acceptsBroadly(rule.text)
                    if namesPort || broad { acceptedPort = true }
                    if namesGroup || broad || (port.multicast && Self.acceptsMulticast(rule.text)) { acceptedGroup = true }
                case .drop:
                    if namesPort, !acceptedPort { return .dropped(rule: rule.text, place: chain.place) }
                    if namesGroup, !namesPort, !acceptedGroup, !acceptedPort {
                        return .dropped(rule: rule.text, place: chain.place)
                    }
                case .other:
                    break
                }
                // A bare drop ends the chain: nothing after it is reached.
                if chain.input, rule.verdict == .drop, Self.dropsEverything(rule.text) {
                    if !(acceptedPort || acceptedGroup), closed == nil { closed = chain.place }
                    cutOff = true
                    break
                }
            }
            if !cutOff, chain.input, chain.dropsByDefault, !(acceptedPort || acceptedGroup), closed == nil {
                closed = chain.place
            }
        }
        guard let closed else { return .open }
        // An accept in a chain jumped to (ufw's, firewalld's) is taken to come first.
        let acceptedElsewhere = chains.contains { chain in
            !chain.base && chain.rules.contains { rule in
                rule.verdict == .accept && (Self.matches(rule.text, port: port) || Self.acceptsBroadly(rule.text)
                    || (port.multicast && (Self.namesGroup(rule.text, port: port, group: group) || Self.acceptsMulticast(rule.text))))
            }
        }
        return acceptedElsewhere ? .open : .closedByDefault(place: closed)
    }

    /// Whether a rule line names `port` after a `dport` (`udp dport 47788`, `th dport { 53, 47788 }`,
    /// `--dport 47000:48000`, `--dports 5353,47788`) for its transport. Never for a port of nil.
    static func matches(_ line: String, port: BatonPort) -> Bool {
        guard let number = port.number else { return false }
        let words = unquoted(line.lowercased())
        let keys: Set<String> = ["dport", "--dport", "--dports", "--destination-port"]
        guard let at = words.firstIndex(where: keys.contains), at + 1 < words.count else { return false }
        // `udp dport != 47788`, `! --dport 47788`: everything but the port.
        if at > 0, words[at - 1] == "!" { return false }
        let rest = words[(at + 1)...]
        if rest.first == "!=" { return false }
        var values: [String] = []
        if rest.first?.hasPrefix("{") == true {
            for word in rest {
                values.append(word)
                if word.contains("}") { break }
            }
        } else {
            values = [rest.first!]
        }
        // The transport: `th dport` is either; otherwise the protocol the rule names.
        let protocols = words.map { $0.trimmed { "{},".contains($0) } }
        let mine = port.transport == .udp ? "udp" : "tcp"
        let other = port.transport == .udp ? "tcp" : "udp"
        if !words.contains("th"), !protocols.contains(mine), protocols.contains(other) { return false }
        let items = values.joined(separator: ",").split { $0 == "," || $0 == "{" || $0 == "}" }
        return items.contains { item in
            let bounds = item.split(whereSeparator: { $0 == "-" || $0 == ":" }).map { Int($0) }
            guard !bounds.isEmpty, !bounds.contains(nil) else { return false }
            switch bounds.count {
            case 1: return bounds[0] == number && !item.contains("-") && !item.contains(":")
            case 2: return (bounds[0]!...max(bounds[0]!, bounds[1]!)).contains(number)
            default: return false
            }
        }
    }

    /// Whether a rule line names the group (or all of multicast, 224.0.0.0/4), for a UDP port that uses it.
    static func namesGroup(_ line: String, port: BatonPort, group: String) -> Bool {
        guard port.multicast else { return false }
        return line.contains(group) || line.contains("224.0.0.0/4")
    }

    /// Whether a rule line lets multicast as such in.
    static func acceptsMulticast(_ line: String) -> Bool {
        let lower = line.lowercased()
        return lower.contains("pkttype multicast") || lower.contains("type multicast")
            || lower.contains("dst-type multicast")
    }

    /// Whether an accept lets in more than one port or protocol's worth: from an address or an
    /// interface (`ip saddr 192.168.1.0/24 accept`, `-i eth0 -j ACCEPT`), not loopback, not
    /// only replies (`ct state established`), not one protocol, not one destination.
    static func acceptsBroadly(_ line: String) -> Bool {
        let lower = line.lowercased()
        // Interface names are quoted (`iifname "lo"`): here their text counts.
        let words = Set(lower.split(separator: " ").map { $0.trimmed { "\"{},;".contains($0) } })
        let narrow = ["dport", "--dport", "--dports", "sport", "--sport", "ct", "--ctstate", "--state", "state", "lo",
                      "daddr", "-d", "--destination",
                      "udp", "tcp", "icmp", "icmpv6", "ipv6-icmp", "l4proto", "protocol", "-p", "pkttype", "flags", "limit",
                      "mark", "--dst-type", "--pkt-type", "fib"]
        if narrow.contains(where: words.contains) { return false }
        if lower.contains("127.0.0.") || lower.contains("::1") || lower.contains("icmp") { return false }
        return true
    }

    /// Whether a drop or reject has no match at all: it drops whatever reaches it.
    static func dropsEverything(_ line: String) -> Bool {
        let words = unquoted(line)
        if words.first == "-A" {
            // `-A INPUT -j DROP`, `-A INPUT -j REJECT --reject-with icmp-host-prohibited`
            return words.count >= 4 && words[2] == "-j"
        }
        let before = words.prefix { !["drop", "reject"].contains($0) }
        let ignored: Set<String> = ["counter", "packets", "bytes", "log", "prefix", "level", "comment"]
        return before.allSatisfy { ignored.contains($0) || Int($0) != nil || $0.hasPrefix("\u{1}") }
    }

    /// The first of `verdicts` among `words`, or nil.
    static func firstVerdict(words: [String], among verdicts: [String]) -> String? {
        words.first { verdicts.contains($0) }
    }

    /// The words of a line with each quoted string made one inert word (`comment "drop it"`
    /// says nothing about the verdict).
    static func unquoted(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                if !quoted {
                    words.append("\u{1}")
                    current = ""
                }
                continue
            }
            if quoted { continue }
            if character == " " || character == "\t" || character == ";" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty, !quoted { words.append(current) }
        return words
    }
}
