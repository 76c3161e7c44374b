import Foundation
import Handoff
import BatonDoctor
import Testing
import HandoffWire
import BatonFiles

@Suite("baton doctor: interfaces")
struct DoctorInterfaceTests {
    let lan = DoctorInterface(name: "eth0", up: true, multicast: true, ipv4: "192.168.1.5")
    let loopback = DoctorInterface(name: "lo", up: true, multicast: false, loopback: true, ipv4: "127.0.0.1")

    @Test("Names classify VPNs, container and VM bridges, loopback and the LAN")
    func kinds() {
        for name in ["tun0", "wg0", "tailscale0", "tap1", "ppp0", "zt7nnig26"] {
            #expect(DoctorInterface(name: name, up: true, multicast: true).kind == .vpn, "\(name)")
        }
        for name in ["docker0", "br-1a2b3c", "veth12ab", "virbr0", "lxdbr0", "vboxnet0"] {
            #expect(DoctorInterface(name: name, up: true, multicast: true).kind == .virtual, "\(name)")
        }
        #expect(loopback.kind == .loopback)
        for name in ["eth0", "enp3s0", "wlan0", "wlp2s0", "v0"] {
            #expect(DoctorInterface(name: name, up: true, multicast: true).kind == .lan, "\(name)")
        }
    }

    @Test("Multicast needs up, MULTICAST and an IPv4 address")
    func capable() {
        #expect(lan.canMulticast)
        #expect(!DoctorInterface(name: "eth1", up: false, multicast: true, ipv4: "10.0.0.1").canMulticast)
        #expect(!DoctorInterface(name: "eth1", up: true, multicast: false, ipv4: "10.0.0.1").canMulticast)
        #expect(!DoctorInterface(name: "eth1", up: true, multicast: true).canMulticast)
    }

    @Test("The interfaces line lists what can do multicast and which one Baton joins, and how it was chosen")
    func interfacesLine() {
        let ok = InterfaceCheck.interfaces([loopback, lan], chosen: "eth0")
        #expect(ok.status == .ok)
        #expect(ok.detail == "eth0 192.168.1.5 can do multicast; Baton joins eth0 (the kernel's choice)")
        let named = InterfaceCheck.interfaces([lan], chosen: "eth0", named: "BATON_INTERFACE")
        #expect(named.detail.hasSuffix("(named by BATON_INTERFACE)"))
    }

    @Test("No interface able to multicast is a problem whose fix names the LAN interface and what it lacks")
    func noneCapable() {
        let down = DoctorInterface(name: "eth0", up: false, multicast: true, ipv4: "192.168.1.5")
        let finding = InterfaceCheck.interfaces([loopback, down], chosen: nil)
        #expect(finding.status == .problem)
        #expect(finding.fix == "bring eth0 up: `sudo ip link set eth0 up`")
        let noFlag = DoctorInterface(name: "eth0", up: true, multicast: false, ipv4: "192.168.1.5")
        #expect(InterfaceCheck.interfaces([noFlag], chosen: nil).fix == "`sudo ip link set eth0 multicast on`")
    }

    @Test("An unusable --interface is a problem with the transport's message")
    func unusableNamed() {
        let finding = InterfaceCheck.interfaces(
            [lan], chosen: nil, choiceError: "There is no network interface named \"nope0\"", named: "--interface")
        #expect(finding.status == .problem)
        #expect(finding.detail.contains("nope0"))
        #expect(finding.fix == "name a LAN interface that can do multicast: `baton --interface eth0`")
    }

    @Test("The group on a Docker bridge or VPN while a LAN is there is a problem naming the LAN")
    func groupOnAnotherInterface() {
        let docker = DoctorInterface(name: "docker0", up: true, multicast: true, ipv4: "172.17.0.1")
        let wg = DoctorInterface(name: "wg0", up: true, multicast: true, ipv4: "10.8.0.2")
        let taken = InterfaceCheck.others([loopback, docker, lan], chosen: "docker0")
        #expect(taken.status == .problem)
        #expect(taken.detail.contains("docker0, a container or VM bridge"))
        #expect(taken.fix == "name the LAN: `baton --interface eth0` (or BATON_INTERFACE=eth0)")
        let vpnOnly = InterfaceCheck.others([loopback, wg], chosen: "wg0")
        #expect(vpnOnly.status == .warning, "with no LAN to name instead, only a warning")
        let present = InterfaceCheck.others([loopback, docker, wg, lan], chosen: "eth0")
        #expect(present.status == .ok)
        #expect(present.detail == "docker0 (container or VM bridge), wg0 (VPN or tunnel) present, but Baton does not use them")
        #expect(InterfaceCheck.others([loopback, lan], chosen: "eth0").detail == "no VPN, container or VM interface")
    }
}

@Suite("baton doctor: firewall rules")
struct DoctorFirewallTests {
    let port = 47788
    let group = "239.255.77.88"
    let udp = BatonPort(.udp, 47788, .datagrams)

    func nft(_ rule: String) -> FirewallRuleset.PortState {
        FirewallRuleset.nftables("table ip t {\n chain c {\n  \(rule)\n }\n}").state(of: udp, group: group)
    }

    let nftDrop = """
        table inet filter {
        	chain input {
        		type filter hook input priority filter; policy accept;
        		ct state established,related accept
        		tcp dport 22 accept
        		udp dport 47788 counter packets 3 bytes 300 drop
        	}
        }
        """

    @Test("nftables: a drop on the port is named with its table and chain, and the fix inserts an accept there")
    func nftablesDrop() {
        let state = FirewallRuleset.nftables(nftDrop).state(of: udp, group: group)
        #expect(state == .dropped(rule: "udp dport 47788 counter packets 3 bytes 300 drop", place: "inet filter input"))
        let finding = FirewallCheck.finding([.init(tool: "nftables", rules: nftDrop)], port: port, group: group)
        #expect(finding.status == .problem)
        #expect(finding.detail == "nftables drops UDP 47788: `udp dport 47788 counter packets 3 bytes 300 drop` (in inet filter input)")
        #expect(finding.fix == "remove that rule, or allow Baton ahead of it: `sudo nft insert rule inet filter input udp dport 47788 accept`")
    }

    @Test("nftables: sets, ranges and the group count; TCP, other ports and accepts do not")
    func nftablesMatching() {
        let blocking = [
            "udp dport { 53, 47788 } drop", "udp dport 47000-48000 reject", "ip daddr 239.255.77.88 drop",
            "ip daddr 224.0.0.0/4 drop", "th dport 47788 drop", "meta l4proto { tcp, udp } th dport 47788 reject",
            "udp dport {47000-47799} counter packets 0 bytes 0 drop",
        ]
        for rule in blocking {
            #expect(nft(rule) == .dropped(rule: rule, place: "ip t c"), "\(rule)")
        }
        let harmless = ["tcp dport 47788 drop", "udp dport 47789 drop", "udp dport 47788 accept", "udp dport 4778 drop",
                        "udp dport 1-1000 drop", "counter packets 47788 bytes 1 drop", "udp dport 53 counter packets 47788 bytes 1 drop",
                        "udp dport != 47788 drop", "udp dport 47788 log prefix \"drop\" accept"]
        for rule in harmless {
            #expect(nft(rule) == .open, "\(rule)")
        }
    }

    @Test("Order: an accept ahead of the drop in its chain wins; one after it, or in another base chain, does not")
    func acceptAheadOfDrop() {
        // What `sudo nft insert rule inet filter input udp dport 47788 accept` makes of nftDrop.
        let inserted = nftDrop.replacingOccurrences(
            of: "ct state established,related accept", with: "udp dport 47788 accept\n\t\tct state established,related accept")
        #expect(FirewallRuleset.nftables(inserted).state(of: udp, group: group) == .open)
        let finding = FirewallCheck.finding([.init(tool: "nftables", rules: inserted)], port: port, group: group)
        #expect(finding.status == .ok, "\(finding)")

        // What `sudo nft add rule …` makes of it: appended after the drop, it is never reached.
        let appended = nftDrop.replacingOccurrences(
            of: "bytes 300 drop", with: "bytes 300 drop\n\t\tudp dport 47788 accept")
        #expect(FirewallRuleset.nftables(appended).state(of: udp, group: group)
            == .dropped(rule: "udp dport 47788 counter packets 3 bytes 300 drop", place: "inet filter input"))

        // Each base chain on the hook decides for itself: an accept in another one does not help.
        let twoTables = nftDrop + "\ntable inet other {\n\tchain input {\n\t\ttype filter hook input priority 10; policy accept;\n\t\tudp dport 47788 accept\n\t}\n}"
        #expect(FirewallRuleset.nftables(twoTables).state(of: udp, group: group) != .open)

        // An accept for the group only lets multicast through, not the port's unicast.
        let groupOnly = nftDrop.replacingOccurrences(
            of: "tcp dport 22 accept", with: "ip daddr 239.255.77.88 accept")
        #expect(FirewallRuleset.nftables(groupOnly).state(of: udp, group: group) != .open)
        // A drop of the group after an accept of the port: the port's accept came first.
        #expect(FirewallRuleset.nftables("table ip t {\n chain c {\n  udp dport 47788 accept\n  ip daddr 239.255.77.88 drop\n }\n}")
            .state(of: udp, group: group) == .open)

        let iptables = "-P INPUT ACCEPT\n-A INPUT -p udp -m udp --dport 47788 -j ACCEPT\n-A INPUT -p udp -m udp --dport 47788 -j DROP"
        #expect(FirewallRuleset.iptables(iptables).state(of: udp, group: group) == .open)
        let after = "-P INPUT ACCEPT\n-A INPUT -p udp -m udp --dport 47788 -j DROP\n-A INPUT -p udp -m udp --dport 47788 -j ACCEPT"
        #expect(FirewallRuleset.iptables(after).state(of: udp, group: group) != .open)
    }

    @Test("The self-test and what is heard outrank the rule text: a drop they contradict is a warning without a fix, a default deny nothing")
    func evidenceOutranksRules() {
        let readings = [FirewallCheck.Reading(tool: "nftables", rules: nftDrop)]
        #expect(FirewallCheck.finding(readings, port: port, group: group, evidence: .none).status == .problem)
        let probe = FirewallCheck.finding(readings, port: port, group: group, evidence: .init(probeReturned: true))
        #expect(probe.status == .warning)
        #expect(probe.fix == nil)
        #expect(probe.detail == "nftables has `udp dport 47788 counter packets 3 bytes 300 drop` (in inet filter input), "
            + "but the self-test's probe came back through the firewall, so that rule does not stop Baton here")
        let heard = FirewallCheck.finding(readings, port: port, group: group, evidence: .init(heardOthers: true))
        #expect(heard.status == .warning)
        #expect(heard.detail.hasSuffix("but datagrams from other machines arrived on UDP 47788, so that rule does not stop Baton here"))
        #expect(DoctorReport(findings: [heard]).exitStatus == 0)
        #expect(DoctorReport(findings: [heard]).text(unicode: true).hasSuffix("\nNothing wrong found."))

        let closed = "table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy drop;\n\t}\n}"
        let policy = [FirewallCheck.Reading(tool: "nftables", rules: closed)]
        #expect(FirewallCheck.finding(policy, port: port, group: group).status == .warning)
        #expect(FirewallCheck.finding(policy, port: port, group: group, evidence: .init(probeReturned: true)).status == .ok)
    }

    @Test("Default deny: a bare drop at the end of an input chain closes what no rule ahead of it allows; an address-wide accept or one in a jumped-to chain counts")
    func defaultDeny() {
        let bare = """
            table inet filter {
            	chain input {
            		type filter hook input priority filter; policy accept;
            		ct state established,related accept
            		iifname "lo" accept
            		udp dport 47788 accept
            		counter packets 9 bytes 900 reject with icmpx admin-prohibited
            	}
            }
            """
        let ruleset = FirewallRuleset.nftables(bare)
        #expect(ruleset.state(of: udp, group: group) == .open)
        #expect(ruleset.state(of: BatonPort(.tcp, 47790, .pairing), group: group) == .closedByDefault(place: "inet filter input"))
        #expect(ruleset.state(of: BatonPort(.tcp, nil, .stateStream), group: group) == .closedByDefault(place: "inet filter input"))
        // An accept after the bare reject is never reached.
        let late = bare.replacingOccurrences(of: "admin-prohibited", with: "admin-prohibited\n\t\ttcp dport 47790 accept")
        #expect(FirewallRuleset.nftables(late).state(of: BatonPort(.tcp, 47790, .pairing), group: group) != .open)
        // The whole LAN accepted: every port, a random one too.
        let lan = bare.replacingOccurrences(of: "udp dport 47788 accept", with: "ip saddr 192.168.1.0/24 accept")
        #expect(FirewallRuleset.nftables(lan).state(of: BatonPort(.tcp, nil, .stateStream), group: group) == .open)
        #expect(FirewallRuleset.nftables(lan).state(of: udp, group: group) == .open)

        // ufw's way: INPUT drops by default and jumps to a chain that accepts the port.
        let ufw = """
            -P INPUT DROP
            -N ufw-user-input
            -A INPUT -j ufw-user-input
            -A INPUT -i lo -j ACCEPT
            -A ufw-user-input -p udp -m udp --dport 47788 -j ACCEPT
            """
        let jumped = FirewallRuleset.iptables(ufw)
        #expect(jumped.state(of: udp, group: group) == .open)
        #expect(jumped.state(of: BatonPort(.tcp, 47790, .pairing), group: group) == .closedByDefault(place: "INPUT"))
        #expect(FirewallRuleset.iptables("-P INPUT ACCEPT\n-A INPUT -j REJECT --reject-with icmp-host-prohibited")
            .state(of: udp, group: group) == .closedByDefault(place: "INPUT"))
    }

    @Test("nftables: an input policy drop with no accept for Baton is a warning; an accept for the port clears it")
    func nftablesPolicy() {
        let closed = """
            table inet filter {
            	chain input {
            		type filter hook input priority filter; policy drop;
            		tcp dport 22 accept
            	}
            }
            """
        let finding = FirewallCheck.finding([.init(tool: "nftables", rules: closed)], port: port, group: group)
        #expect(finding.status == .warning)
        #expect(finding.fix?.contains("sudo nft insert rule inet filter input udp dport 47788 accept") == true)
        let open = closed.replacingOccurrences(of: "tcp dport 22 accept", with: "udp dport 47788 accept")
        #expect(FirewallCheck.finding([.init(tool: "nftables", rules: open)], port: port, group: group).status == .ok)
        let multicast = closed.replacingOccurrences(of: "tcp dport 22 accept", with: "meta pkttype multicast accept")
        #expect(FirewallCheck.finding([.init(tool: "nftables", rules: multicast)], port: port, group: group).status == .ok)
    }

    @Test("iptables -S: DROP and REJECT on the port or group, the INPUT policy, and ACCEPT")
    func iptables() {
        let text = """
            -P INPUT ACCEPT
            -P FORWARD DROP
            -P OUTPUT ACCEPT
            -A INPUT -p tcp -m tcp --dport 47788 -j DROP
            -A INPUT -p udp -m udp --dport 47788 -j REJECT --reject-with icmp-port-unreachable
            """
        #expect(FirewallRuleset.iptables(text).state(of: udp, group: group) == .dropped(
            rule: "-A INPUT -p udp -m udp --dport 47788 -j REJECT --reject-with icmp-port-unreachable", place: "INPUT"))
        let finding = FirewallCheck.finding([.init(tool: "iptables", rules: text)], port: port, group: group)
        #expect(finding.status == .problem)
        #expect(finding.fix == "remove that rule, or allow Baton ahead of it: `sudo iptables -I INPUT -p udp --dport 47788 -j ACCEPT`")
        for rule in ["-A INPUT -p udp -m multiport --dports 5353,47788 -j DROP", "-A INPUT -d 239.255.77.88/32 -j DROP",
                     "-A INPUT -p udp -m udp --dport 47000:48000 -j DROP"] {
            #expect(FirewallRuleset.iptables(rule).state(of: udp, group: group) == .dropped(rule: rule, place: "INPUT"), "\(rule)")
        }
        #expect(FirewallRuleset.iptables("-A INPUT -p udp -m udp ! --dport 47788 -j DROP").state(of: udp, group: group) == .open)
        let closed = "-P INPUT DROP\n-A INPUT -p tcp --dport 22 -j ACCEPT"
        #expect(FirewallCheck.finding([.init(tool: "iptables", rules: closed)], port: port, group: group).status == .warning)
        let allowed = closed + "\n-A INPUT -p udp -m udp --dport 47788 -j ACCEPT"
        #expect(FirewallCheck.finding([.init(tool: "iptables", rules: allowed)], port: port, group: group).status == .ok)
    }

    let every = BatonPort.all(datagrams: 47788, pairing: 47790, stream: 0)
    let onlyDatagrams = """
        table inet filter {
        	chain input {
        		type filter hook input priority filter; policy drop;
        		ct state established,related accept
        		iifname "lo" accept
        		udp dport 47788 accept
        	}
        }
        """

    @Test("Every port: a default deny that allows only UDP 47788 is a problem naming pairing and the state stream, with one insert per protocol")
    func everyPort() {
        let readings = [FirewallCheck.Reading(tool: "nftables", rules: onlyDatagrams)]
        let finding = FirewallCheck.finding(readings, ports: every, group: group)
        #expect(finding.status == .problem)
        #expect(finding.detail == "nftables drops incoming traffic by default (inet filter input) and no rule allows "
            + "UDP and TCP 47790 (pairing) or the state stream's TCP port (any free one at each start)")
        let fix = [
            "allow them: `sudo nft insert rule inet filter input udp dport 47790 accept` and ",
            "`sudo nft insert rule inet filter input tcp dport { 47789, 47790 } accept` ",
            "(or `sudo ufw allow 47790` and `sudo ufw allow 47789/tcp`); ",
            "and keep the state stream on that port: `baton --stream-port 47789` (or BATON_STREAM_PORT=47789)",
        ].joined()
        #expect(finding.fix == fix)

        // With the stream's port fixed, it is named as a port.
        let fixed = BatonPort.all(datagrams: 47788, pairing: 47790, stream: 47800)
        let named = FirewallCheck.finding(readings, ports: fixed, group: group)
        #expect(named.detail.hasSuffix("no rule allows UDP and TCP 47790 (pairing) or TCP 47800 (state stream)"))
        #expect(named.fix?.contains("`sudo nft insert rule inet filter input tcp dport { 47790, 47800 } accept`") == true)
        #expect(named.fix?.contains("--stream-port") == false)

        // Everything allowed but the stream's port left to chance: fixing it to an allowed port is all.
        let allowed = onlyDatagrams.replacingOccurrences(
            of: "udp dport 47788 accept", with: "udp dport { 47788, 47790 } accept\n\t\ttcp dport { 47789, 47790 } accept")
        let chance = FirewallCheck.finding([.init(tool: "nftables", rules: allowed)], ports: every, group: group)
        #expect(chance.status == .problem)
        #expect(chance.detail == "nftables drops incoming traffic by default (inet filter input) and no rule allows "
            + "the state stream's TCP port (any free one at each start)")
        #expect(chance.fix == "run baton with `--stream-port 47789` (or BATON_STREAM_PORT=47789): the firewall already allows TCP 47789")
        let open = FirewallCheck.finding(
            [.init(tool: "nftables", rules: allowed)], ports: BatonPort.all(datagrams: 47788, pairing: 47790, stream: 47789), group: group)
        #expect(open.status == .ok)
        #expect(open.detail == "nftables: no rule drops UDP 47788 or 239.255.77.88, UDP and TCP 47790 (pairing) or TCP 47789 (state stream)")
    }

    @Test("Every port: drops of TCP ports are problems even while the self-test passes; iptables gets -I with multiport")
    func everyPortDropped() {
        let text = """
            -P INPUT ACCEPT
            -A INPUT -p udp -m udp --dport 47788 -j DROP
            -A INPUT -p tcp -m multiport --dports 47789,47790 -j DROP
            """
        let ports = BatonPort.all(datagrams: 47788, pairing: 47790, stream: 47789)
        let readings = [FirewallCheck.Reading(tool: "iptables", rules: text)]
        let blind = FirewallCheck.finding(readings, ports: ports, group: group)
        #expect(blind.status == .problem)
        #expect(blind.detail == "iptables drops UDP 47788: `-A INPUT -p udp -m udp --dport 47788 -j DROP` (in INPUT); "
            + "iptables drops TCP 47790 (pairing) and TCP 47789 (state stream): `-A INPUT -p tcp -m multiport --dports 47789,47790 -j DROP` (in INPUT)")
        #expect(blind.fix == "remove those rules, or allow Baton ahead of them: `sudo iptables -I INPUT -p udp --dport 47788 -j ACCEPT` "
            + "and `sudo iptables -I INPUT -p tcp -m multiport --dports 47789,47790 -j ACCEPT`")

        // The probe came back: UDP 47788's drop becomes a note; the TCP ports stay a problem.
        let weighed = FirewallCheck.finding(readings, ports: ports, group: group, evidence: .init(probeReturned: true))
        #expect(weighed.status == .problem)
        #expect(weighed.detail.hasPrefix("iptables drops TCP 47790 (pairing) and TCP 47789 (state stream)"))
        #expect(weighed.detail.hasSuffix("; iptables has `-A INPUT -p udp -m udp --dport 47788 -j DROP` (in INPUT), but the "
            + "self-test's probe came back through the firewall, so that rule does not stop Baton here"))
        #expect(weighed.fix == "remove that rule, or allow Baton ahead of it: "
            + "`sudo iptables -I INPUT -p tcp -m multiport --dports 47789,47790 -j ACCEPT`")
        #expect(FirewallCheck.suggestedStreamPort(every) == 47789)
    }

    @Test("Rules that cannot be read make the check skipped, and say why")
    func unreadable() {
        let finding = FirewallCheck.finding(
            [.init(tool: "nftables", failure: "needs root: Operation not permitted")], port: port, group: group)
        #expect(finding.status == .skipped)
        #expect(finding.detail.contains("nftables: needs root: Operation not permitted"))
        #expect(finding.fix == "look for rules on UDP 47788: `sudo nft list ruleset` or `sudo iptables -S`")
        let half = FirewallCheck.finding(
            [.init(tool: "nftables", rules: ""), .init(tool: "iptables", failure: "needs root")], port: port, group: group)
        #expect(half.status == .ok)
        #expect(half.detail == "nftables: no rule drops UDP 47788 or 239.255.77.88; iptables could not be read (needs root)")
    }
}

@Suite("baton doctor: the key, the self-test, listening and the report")
struct DoctorReportTests {
    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "doctor-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("A missing key is a problem whose fix is `baton key`, and doctor does not create one")
    func missingKey() throws {
        let home = try folder()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let (finding, key) = KeyCheck.check(keyFile: nil, environment: ["HOME": home])
        #expect(finding.status == .problem)
        #expect(key == nil)
        #expect(finding.detail == "no group key at \(home)/.config/baton/group.key")
        #expect(finding.fix?.hasPrefix("make one with `baton key`") == true)
        #expect(!FileManager.default.fileExists(atPath: "\(home)/.config/baton/group.key"))
    }

    @Test("A key file others may read is a problem with GroupKey's chmod; a 0600 one is fine; BATON_KEY is used")
    func keyFileModes() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/group.key"
        let key = GroupKey.random()
        try key.write(to: path, replace: true)
        let (fine, found) = KeyCheck.check(keyFile: path, environment: [:])
        #expect(fine.status == .ok)
        #expect(found == key)
        #expect(chmod(path, 0o644) == 0)
        let (exposed, none) = KeyCheck.check(keyFile: path, environment: [:])
        #expect(exposed.status == .problem)
        #expect(none == nil)
        #expect(exposed.fix?.contains("chmod 600 '\(path)'") == true)
        let (environment, fromEnvironment) = KeyCheck.check(keyFile: nil, environment: ["BATON_KEY": key.base64, "HOME": dir])
        #expect(environment.status == .ok)
        #expect(fromEnvironment == key)
        #expect(KeyCheck.check(keyFile: nil, environment: ["BATON_KEY": "short"]).finding.status == .problem)
    }

    @Test("Self-test outcomes: back in time is ok; lost names the port; no route names `ip route add`")
    func selfTest() {
        func finding(_ outcome: SelfTestOutcome) -> DoctorFinding {
            MulticastCheck.selfTest(outcome, group: "239.255.77.88", port: 47788, interface: "v0", suggestedLAN: "eth0")
        }
        #expect(finding(.returned(seconds: 0.002)).status == .ok)
        #expect(finding(.returned(seconds: 0.002)).detail == "a probe to 239.255.77.88:47788 on v0 came back through the kernel in 2 ms")
        let lost = finding(.lost(seconds: 1))
        #expect(lost.status == .problem)
        #expect(lost.detail.contains("a firewall drops UDP 47788"))
        // `insert`: an accept added after the drop (`nft add rule`) is never reached.
        #expect(lost.fix == "allow Baton's port ahead of any rule that drops it: "
            + "`sudo nft insert rule inet filter input udp dport 47788 accept` (or `sudo ufw allow 47788/udp`)")
        let noJoin = finding(.startFailed("Could not join multicast group 239.255.77.88 on the kernel's default interface (No such device, errno 19); …"))
        #expect(noJoin.detail == "no route to 239.255.77.88: the group cannot be joined")
        #expect(noJoin.fix?.hasPrefix("add a multicast route: `sudo ip route add 224.0.0.0/4 dev eth0`") == true)
        #expect(finding(.sendFailed("Network is unreachable, errno 101")).fix?.contains("ip route add 224.0.0.0/4 dev eth0") == true)

        // Started without multicast: unicast only, and the fix says what gets past it.
        let noRoute = finding(.unavailable(reason: "no multicast route"))
        #expect(noRoute.detail == "no route to 239.255.77.88: multicast unavailable, unicast only")
        #expect(noRoute.fix == "add a multicast route: `sudo ip route add 224.0.0.0/4 dev eth0`, or name the LAN with "
            + "`baton --interface eth0`; or name the other machine: `baton --peer HOST` (\(MulticastCheck.oneSide))")
        let noFlag = finding(.unavailable(reason: "v0 has no MULTICAST flag"))
        #expect(noFlag.detail == "multicast unavailable on v0 (v0 has no MULTICAST flag): unicast only")
        #expect(noFlag.fix?.hasPrefix("v0 cannot do multicast (a VPN or tun device?): name the other machine") == true)
        let firewall = finding(.unavailable(reason: "a firewall refuses it"))
        #expect(firewall.status == .problem)
        #expect(firewall.fix?.contains("nft insert rule inet filter output ip daddr 224.0.0.0/4 accept") == true)
    }

    @Test("Listening counts distinct accepted senders (not itself, not the probe), datagrams under another key, unknown devices and protocol 2 machines")
    func listening() throws {
        let key = GroupKey.random()
        let device = DeviceIdentity.random()
        let membership = Membership(identity: device, groupKey: key)
        let codec = DatagramCodec(keys: GroupKeys(current: key))
        let other = DatagramCodec(keys: GroupKeys(current: GroupKey.random()))
        let own = SenderID.random(device: device.publicIdentity.deviceID)
        let probe = DoctorProbe()
        let (a, b) = (SenderID.random(device: device.publicIdentity.deviceID), SenderID.random(device: device.publicIdentity.deviceID))
        var tally = ListenTally()
        let now = Date()
        for (sender, sequence) in [(a, 1), (a, 2), (b, 1), (own, 1)] {
            tally.count(
                try codec.encode(.query(types: nil), identity: device, senderID: sender, sequence: UInt64(sequence), sentAt: now),
                membership: membership, own: own, probe: probe, now: now)
        }
        tally.count(probe.bytes, membership: membership, own: own, probe: probe, now: now)
        tally.count(
            try other.encode(.query(types: nil), identity: device, senderID: a, sequence: 3, sentAt: now),
            membership: membership, own: own, probe: probe, now: now)
        // A datagram under another key is tried again once listening ends, then counted.
        #expect(tally.otherKey == 0)
        tally.settle(membership: membership, own: own, probe: probe, now: now)
        #expect(tally.peers == [a, b])
        #expect(tally.otherKey == 1)
        let finding = MulticastCheck.listening(tally, seconds: 3)
        #expect(finding.status == .problem)
        #expect(finding.detail == "heard 2 peers with this key, and 1 datagram in 3 s arrived under another group key")
        #expect(finding.fix?.hasPrefix("another group key is in use on this LAN: pair again") == true)
        var quiet = ListenTally()
        quiet.peers = [a]
        #expect(MulticastCheck.listening(quiet, seconds: 3) == DoctorFinding(name: "listening", status: .ok, detail: "heard 1 peer in 3 s"))
        #expect(MulticastCheck.listening(ListenTally(), seconds: 1.5).status == .warning)

        // A device this machine does not list, with the same key: named, with pairing as the fix.
        let stranger = DeviceIdentity.random()
        var unknown = ListenTally()
        unknown.count(
            try codec.encode(
                .query(types: nil), identity: stranger, senderID: .random(device: stranger.publicIdentity.deviceID),
                sequence: 1, sentAt: now),
            membership: membership, own: own, probe: probe, source: "10.0.0.6:47788", now: now)
        #expect(unknown.unknownDevice == 1 && unknown.peers.isEmpty)
        let unknownFinding = MulticastCheck.listening(unknown, seconds: 3)
        #expect(unknownFinding.status == .problem && unknownFinding.detail.contains("(10.0.0.6)"), "\(unknownFinding.detail)")
        #expect(unknownFinding.fix?.contains("baton pair") == true)

        // A version 2 datagram (magic BTN1), even without a key: "speaks protocol 2: update it".
        var older = ListenTally()
        let v2 = try DatagramCodecV2(groupKey: key).encode(.query(types: nil), senderID: .random(), sequence: 1, sentAt: now)
        older.count(v2, membership: nil, own: own, probe: probe, source: "10.0.0.5:47788", now: now)
        #expect(older.oldProtocolSources == ["10.0.0.5"] && older.unread == 0)
        #expect(MulticastCheck.listening(older, seconds: 3).detail == "10.0.0.5 speaks protocol 2: update it")
    }

    @Test("Unicast peers: which answered; none listed is a hint only when multicast failed; the source's port is dropped")
    func unicastPeers() throws {
        let answered = MulticastCheck.unicast(peers: ["10.0.0.2", "10.0.0.3"], heard: ["10.0.0.3"], multicastWorks: false)
        #expect(answered == DoctorFinding(name: "unicast peers", status: .ok, detail: "10.0.0.3 answered by unicast"))
        let silent = MulticastCheck.unicast(peers: ["10.0.0.2"], heard: [], multicastWorks: true)
        #expect(silent.status == .warning && silent.detail == "no answer by unicast from 10.0.0.2")
        #expect(MulticastCheck.unicast(peers: [], heard: [], multicastWorks: true).status == .skipped)
        let hint = MulticastCheck.unicast(peers: [], heard: [], multicastWorks: false)
        #expect(hint.status == .warning && hint.fix?.contains("`baton --peer HOST`") == true)
        #expect(MulticastCheck.unicast(peers: ["10.0.0.2"], heard: nil, multicastWorks: false).status == .skipped)
        // The tally keeps where accepted datagrams came from, without the port.
        let key = GroupKey.random()
        let device = DeviceIdentity.random()
        let codec = DatagramCodec(keys: GroupKeys(current: key))
        var tally = ListenTally()
        let now = Date()
        tally.count(
            try codec.encode(
                .query(types: nil), identity: device, senderID: .random(device: device.publicIdentity.deviceID),
                sequence: 1, sentAt: now),
            membership: Membership(identity: device, groupKey: key), own: .random(), probe: DoctorProbe(),
            source: "10.0.0.3:47788", now: now)
        #expect(tally.sources == ["10.0.0.3"])
    }

    @Test("Multicast fails but a listed peer answers: one true instruction, --peer on this side alone")
    func unicastFix() {
        var findings = [
            DoctorFinding(name: FirewallCheck.name, status: .problem, detail: "drops", fix: "allow it"),
            DoctorFinding(name: MulticastCheck.selfTestName, status: .problem, detail: "lost",
                fix: "name the other machine: `baton --peer HOST` (\(MulticastCheck.oneSide))"),
            DoctorFinding(name: MulticastCheck.listenName, status: .problem, detail: "x", fix: "keep"),
        ]
        MulticastCheck.preferUnicast(answered: ["10.77.0.11"], in: &findings)
        let expected = "multicast does not pass here, but 10.77.0.11 answers by unicast: run baton with `--peer 10.77.0.11` "
            + "(naming the other machine on one side is enough: it answers by unicast once it hears this one)"
        #expect(findings.map(\.fix) == [expected, expected, "keep"])
        // No fix tells the person to name this machine on the other one: one side is enough.
        let texts = [
            MulticastCheck.unicast(peers: [], heard: [], multicastWorks: false).fix,
            MulticastCheck.unicast(peers: ["10.0.0.2"], heard: [], multicastWorks: false).fix,
            MulticastCheck.selfTest(.unavailable(reason: "no multicast route"), group: "239.255.77.88", port: 47788,
                interface: nil, suggestedLAN: "eth0").fix,
            expected,
        ]
        for text in texts {
            #expect(text?.contains("name this machine") == false && text?.contains("this one on it") == false, "\(text ?? "")")
        }
    }

    @Test("The probe is 114 bytes with magic BTDR, which a Baton peer drops as badMagic")
    func probe() {
        let probe = DoctorProbe()
        #expect(probe.bytes.count == 114)
        #expect(Array(probe.bytes.prefix(4)) == Array("BTDR".utf8))
        #expect(throws: RejectionReason.badMagic) { try DatagramHeader(parsing: probe.bytes) }
        #expect(!DoctorProbe().matches(probe.bytes), "another run's probe is not this one")
    }

    let ok = DoctorFinding(name: "interfaces", status: .ok, detail: "fine")
    let warning = DoctorFinding(name: "listening", status: .warning, detail: "heard no peer", fix: "start baton")
    let problem = DoctorFinding(name: "firewall", status: .problem, detail: "drops", fix: "allow it")
    let skipped = DoctorFinding(name: "firewall", status: .skipped, detail: "cannot read", fix: "sudo nft list ruleset")

    @Test("Exit status: 1 with any problem; warnings and skipped checks keep it 0")
    func exitStatus() {
        #expect(DoctorReport(findings: [ok, warning, skipped]).exitStatus == 0)
        #expect(DoctorReport(findings: [ok, warning, problem]).exitStatus == 1)
        #expect(DoctorReport(findings: [warning, problem]).firstFix == "allow it", "a problem's fix comes before a warning's")
        #expect(DoctorReport(findings: [ok, skipped, warning]).firstFix == "start baton")
    }

    @Test("Text: one line per check with its marker, then the first thing to try; ASCII markers without UTF-8")
    func text() {
        let report = DoctorReport(findings: [ok, warning, problem, skipped])
        #expect(report.text(unicode: true) == """
            ✓ interfaces: fine
            ! listening: heard no peer
            ✗ firewall: drops
            – firewall: cannot read
            First thing to try: allow it
            """)
        #expect(report.text(unicode: false).split(separator: "\n").map { $0.prefix(1) } == ["+", "!", "x", "-", "F"])
        #expect(DoctorReport(findings: [ok]).text(unicode: true) == "✓ interfaces: fine\nNothing wrong found.")
        let hostile = DoctorFinding(name: "firewall", status: .problem, detail: "rule \u{1B}]0;x\u{07}", fix: nil)
        #expect(!DoctorReport(findings: [hostile]).text(unicode: true).contains("\u{1B}"))
    }

    @Test("JSON: checks with name, status, detail and fix (null when none), exitStatus and firstFix")
    func json() throws {
        let text = DoctorReport(findings: [ok, problem]).json()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["checks", "exitStatus", "firstFix"])
        #expect(object["exitStatus"] as? Int == 1)
        #expect(object["firstFix"] as? String == "allow it")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == 2)
        #expect(checks[0]["name"] as? String == "interfaces")
        #expect(checks[0]["status"] as? String == "ok")
        #expect(checks[0]["detail"] as? String == "fine")
        #expect(checks[0]["fix"] is NSNull)
        #expect(checks[1]["status"] as? String == "problem")
        #expect(checks[1]["fix"] as? String == "allow it")
        #expect(!text.contains("\n"), "one line")
    }
}
