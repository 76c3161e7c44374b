import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffWire
import BatonFiles

/// The probe `baton doctor` sends to the group to see it come back through the kernel
/// (docs/PROTOCOL.md, section 7): 114 bytes, ASCII `BTDR`, 16 random bytes, then zeros. Its
/// magic is not `BTN1`, so a Baton peer drops it as `badMagic` and nothing else happens.
package struct DoctorProbe: Equatable, Sendable {
    package static let magic: [UInt8] = Array("BTDR".utf8)
    package static let length = DatagramHeader.minimumDatagramLength

    package let token: [UInt8]

    package init(token: [UInt8] = (0..<16).map { _ in UInt8.random(in: .min ... .max) }) {
        self.token = token
    }

    package var bytes: [UInt8] {
        Self.magic + token + [UInt8](repeating: 0, count: Self.length - Self.magic.count - token.count)
    }

    /// Whether `datagram` is this probe.
    package func matches(_ datagram: [UInt8]) -> Bool { datagram == bytes }
}

/// How the multicast self-test went.
package enum SelfTestOutcome: Equatable, Sendable {
    /// The probe came back after this many seconds.
    case returned(seconds: Double)
    /// Binding or joining failed: the transport's message.
    case startFailed(String)
    /// Sending the probe failed: the reason.
    case sendFailed(String)
    /// The probe did not come back within this many seconds.
    case lost(seconds: Double)
    /// The transport started without multicast (no MULTICAST flag, no route, a firewall): why.
    case unavailable(reason: String)
}

/// The multicast self-test and the listening, as findings.
package enum MulticastCheck {
    package static let selfTestName = "multicast self-test"
    package static let listenName = "listening"

    package static func selfTest(
        _ outcome: SelfTestOutcome, group: String, port: Int, interface: String?, suggestedLAN: String
    ) -> DoctorFinding {
        let target = "\(group):\(port)"
        let addRoute = "add a multicast route: `sudo ip route add 224.0.0.0/4 dev \(suggestedLAN)`, "
            + "or name the LAN with `baton --interface \(suggestedLAN)`"
        switch outcome {
        case .returned(let seconds):
            return DoctorFinding(name: selfTestName, status: .ok,
                detail: "a probe to \(target)\(interface.map { " on \($0)" } ?? "") came back through the kernel in \(milliseconds(seconds)) ms")
        case .startFailed(let message):
            let noRoute = message.contains("No such device") || message.contains("unreachable")
                || message.contains("errno 19") || message.contains("errno 101")
            return DoctorFinding(name: selfTestName, status: .problem,
                detail: noRoute ? "no route to \(group): the group cannot be joined" : message,
                fix: noRoute ? addRoute : message)
        case .sendFailed(let reason):
            let noRoute = reason.contains("unreachable") || reason.contains("errno 101")
            return DoctorFinding(name: selfTestName, status: .problem,
                detail: noRoute ? "no route to \(group): the probe could not be sent (\(reason))"
                    : "the probe to \(target) could not be sent (\(reason))",
                fix: noRoute ? addRoute : "check that \(interface ?? "the interface") is up; or \(addRoute)")
        case .unavailable(let reason):
            let place = interface.map { " on \($0)" } ?? ""
            let peer = "name the other machine: `baton --peer HOST` (\(oneSide))"
            let fix: String
            if reason.contains("MULTICAST flag") {
                fix = "\(interface ?? "this interface") cannot do multicast (a VPN or tun device?): \(peer); "
                    + "or name the LAN with `baton --interface \(suggestedLAN)`"
            } else if reason.contains("route") {
                fix = "\(addRoute); or \(peer)"
            } else if reason.contains("firewall") {
                fix = "a firewall refuses multicast on output: allow it "
                    + "(`sudo nft insert rule inet filter output ip daddr 224.0.0.0/4 accept`); or \(peer)"
            } else {
                fix = peer
            }
            let detail = reason.contains("route")
                ? "no route to \(group): multicast unavailable, unicast only"
                : "multicast unavailable\(place) (\(reason)): unicast only"
            return DoctorFinding(name: selfTestName, status: .problem, detail: detail, fix: fix)
        case .lost(let seconds):
            return DoctorFinding(name: selfTestName, status: .problem,
                detail: "a probe to \(target) did not come back within \(milliseconds(seconds)) ms: "
                    + "a firewall drops UDP \(port), or multicast does not loop back here",
                // `insert`, not `add`: an accept appended after the rule that drops the port is never reached.
                fix: "allow Baton's port ahead of any rule that drops it: "
                    + "`sudo nft insert rule inet filter input udp dport \(port) accept` (or `sudo ufw allow \(port)/udp`)")
        }
    }

    /// What listening heard. `removed` says this machine was removed from the group (then
    /// nothing it hears is fixed by pairing this identity again); `keyFromEnvironment` that its key
    /// comes from `BATON_KEY`, which takes the place of the key file.
    package static func listening(
        _ tally: ListenTally?, seconds: Double, skippedBecause reason: String? = nil, removed: Bool = false,
        keyFromEnvironment: Bool = false, environment: [String: String] = [:]
    ) -> DoctorFinding {
        guard let tally else {
            return DoctorFinding(name: listenName, status: .skipped, detail: reason ?? "not run")
        }
        let span = "\(trimmed(seconds)) s"
        if !tally.oldProtocolSources.isEmpty {
            let speakers = tally.oldProtocolSources.sorted().map { "\($0) speaks protocol 2: update it" }
            return DoctorFinding(name: listenName, status: .problem,
                detail: speakers.joined(separator: "; "),
                fix: "install this Baton's version there, then pair it once with a machine that has it: "
                    + "`baton pair` on one and `baton pair --join` on the other")
        }
        if removed {
            let others = tally.otherKey + tally.unknownDevice
            return DoctorFinding(name: listenName, status: .problem,
                detail: "this machine was removed from the group: heard \(peers(tally.peers.count)) in \(span)"
                    + (others > 0 ? ", and \(others) datagram\(others == 1 ? "" : "s") it cannot read" : ""),
                fix: "a removed identity cannot come back: " + DeviceIdentity.removedRemedy(environment: environment))
        }
        if tally.unknownDevice > 0 {
            let heard = tally.peers.isEmpty ? "" : "heard \(peers(tally.peers.count)), and "
            let from = tally.unknownDeviceSources.sorted().joined(separator: ", ")
            return DoctorFinding(name: listenName, status: .problem,
                detail: "\(heard)\(tally.unknownDevice) datagram\(tally.unknownDevice == 1 ? "" : "s") in \(span) "
                    + "came from devices this machine does not list\(from.isEmpty ? "" : " (\(from))")",
                fix: "pair with that machine once (`baton pair` here, `baton pair --join` there), "
                    + "or with any machine that is paired with it; `baton devices` lists what this one knows")
        }
        if tally.otherKey > 0 {
            let heard = tally.peers.isEmpty ? "" : "heard \(peers(tally.peers.count)) with this key, and "
            let fix = keyFromEnvironment
                ? "\(environmentKey); pairing again would not help while it is set"
                : "another group key is in use on this LAN: pair again, with `baton pair` on a machine of the group and `baton pair --join` here"
            return DoctorFinding(name: listenName, status: .problem,
                detail: "\(heard)\(tally.otherKey) datagram\(tally.otherKey == 1 ? "" : "s") in \(span) arrived under another group key",
                fix: fix)
        }
        if tally.unread > 0 {
            return DoctorFinding(name: listenName, status: .warning,
                detail: "\(tally.unread) datagram\(tally.unread == 1 ? "" : "s") arrived in \(span), unread without a key")
        }
        if tally.peers.isEmpty {
            return DoctorFinding(name: listenName, status: .warning,
                detail: "heard no peer in \(span) (peers send only while they offer something)",
                fix: "start `baton` on the other machine, then run `baton doctor` again")
        }
        let changing = tally.previousKey > 0 ? " (some under the previous group key: a key change is under way)" : ""
        return DoctorFinding(name: listenName, status: .ok, detail: "heard \(peers(tally.peers.count)) in \(span)\(changing)")
    }

    /// What to do when `BATON_KEY` is set and datagrams under another key are heard.
    package static let environmentKey = "BATON_KEY is set here and takes the place of the key file, so doctor and baton "
        + "use the key it holds: unset it (unset BATON_KEY) to use the key file, or set it to what `baton key` prints "
        + "on a machine of the group"

    package static let unicastName = "unicast peers"

    /// What is true of unicast peers (docs/PROTOCOL.md, section 1, "Peers learnt by unicast").
    package static let oneSide = "naming the other machine on one side is enough: it answers by unicast once it hears this one"

    /// The fix when multicast does not pass but `answered` (listed peers) answered by unicast.
    package static func unicastFix(answered: [String]) -> String {
        "multicast does not pass here, but \(answered.joined(separator: ", ")) answers by unicast: "
            + "run baton with `--peer \(answered[0])` (\(oneSide))"
    }

    /// When multicast failed but listed peers answered by unicast, the self-test's problem and
    /// a firewall's that explains it get the one fix that works on this network: `--peer`.
    package static func preferUnicast(answered: [String], in findings: inout [DoctorFinding]) {
        guard !answered.isEmpty else { return }
        for index in findings.indices where findings[index].status == .problem
            && [selfTestName, FirewallCheck.name].contains(findings[index].name)
        {
            findings[index].fix = unicastFix(answered: answered)
        }
    }

    /// The unicast peers (`--peer`, `BATON_PEERS`, the peers file): which of them answered while
    /// doctor listened. With none listed, a hint when multicast failed. Names that do not resolve
    /// (`unresolved`) make it a problem, in this one line: Baton skips them and tries them again.
    package static func unicast(
        peers listed: [String], heard sources: Set<String>?, multicastWorks: Bool, unresolved: [UnicastPeerEntry] = []
    ) -> DoctorFinding {
        let finding = unicastListed(peers: listed, heard: sources, multicastWorks: multicastWorks)
        guard !unresolved.isEmpty else { return finding }
        let names = unresolved.map { "\($0.host) (\($0.source))" }.joined(separator: ", ")
        let verb = unresolved.count == 1 ? "does" : "do"
        let rest = listed.isEmpty || finding.status == .skipped ? "" : "; \(finding.detail)"
        return DoctorFinding(name: unicastName, status: .problem,
            detail: "\(names) \(verb) not resolve: skipped, and tried again every \(Int(UnicastPeers.retryInterval)) s\(rest)",
            fix: "check the name, or give its IPv4 address (in --peer, BATON_PEERS or the peers file); "
                + "away from its network, a name that does not resolve only waits until it does")
    }

    private static func unicastListed(peers listed: [String], heard sources: Set<String>?, multicastWorks: Bool) -> DoctorFinding {
        guard !listed.isEmpty else {
            return multicastWorks
                ? DoctorFinding(name: unicastName, status: .skipped, detail: "none listed (none needed while multicast passes)")
                : DoctorFinding(name: unicastName, status: .warning, detail: "none listed",
                    fix: "where multicast cannot pass (Wi-Fi isolation, a VPN), name the other machine: "
                        + "`baton --peer HOST` (\(oneSide))")
        }
        guard let sources else {
            return DoctorFinding(name: unicastName, status: .skipped, detail: "not tried: Baton's socket could not be opened")
        }
        let answered = listed.filter(sources.contains)
        if answered.isEmpty {
            return DoctorFinding(name: unicastName, status: .warning,
                detail: "no answer by unicast from \(listed.joined(separator: ", "))",
                fix: "start `baton` there and run doctor again: a peer that hears this machine answers it by unicast "
                    + "while it offers something (it need not name this one)")
        }
        return DoctorFinding(name: unicastName, status: .ok, detail: "\(answered.joined(separator: ", ")) answered by unicast")
    }

    private static func peers(_ count: Int) -> String { count == 1 ? "1 peer" : "\(count) peers" }

    private static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    private static func trimmed(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : PlainText.oneDecimal(seconds)
    }
}
