import Foundation
import Testing

/// Issue 10, section 3: `--peer` where multicast does not pass. Both hosts drop every packet to
/// the group as it arrives (nftables), as a Wi-Fi with client isolation or a VPN would; each baton
/// names the other with `--peer`, `BATON_PEERS` or the `peers` file, and hands off by unicast.
///
/// Needs root, `ip netns`, `nft`, tmux and the built programs; skips, saying why, without them.
@Suite("Unicast peers where multicast does not pass (netlab + tmux)", .serialized, .ownThread, .timeLimit(.minutes(2)))
struct UnicastPeerTests {
    /// The nftables table this test adds to a lab host.
    static let table = "batonpeers"

    /// Makes host `host` drop every packet arriving for the multicast group.
    static func dropMulticast(_ lab: Lab, host: Int) throws {
        guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
        for arguments in [
            ["add", "table", "ip", table],
            ["add", "chain", "ip", table, "input", "{ type filter hook input priority -10 ; }"],
            ["add", "rule", "ip", table, "input", "ip", "daddr", E2E.group, "counter", "drop"],
        ] {
            try Command.run(lab.command(host: host, ["nft"] + arguments))
        }
    }

    /// How many multicast packets host `host`'s rule dropped so far.
    static func multicastDrops(_ lab: Lab, host: Int) throws -> Int {
        let listing = try Command.run(lab.command(host: host, ["nft", "list", "chain", "ip", table, "input"])).output
        guard let range = listing.range(of: #"packets [0-9]+"#, options: .regularExpression) else { return 0 }
        return Int(listing[range].dropFirst("packets ".count)) ?? 0
    }

    @Test("Multicast dropped on both hosts: with --peer / BATON_PEERS / the peers file, a counter and a large edit continue both ways, the source is told, and doctor suggests --peer")
    func handoffByUnicast() throws {
        try Stage.run(hosts: 3) { stage in
            let lab = stage.lab
            try Self.dropMulticast(lab, host: 1)
            try Self.dropMulticast(lab, host: 2)
            let h1 = lab.address(host: 1)
            let h2 = lab.address(host: 2)

            // A name that does not resolve is a warning, naming it and where it came from; the
            // program goes on without it (and tries it again later).
            let unresolved = try LabProcess("unresolved", lab: lab, host: 3, [stage.baton, "monitor", "--peer", "nas.invalid"])
            let warning = try unresolved.waitForLine("the warning about nas.invalid") { $0.isError && $0.text.contains("nas.invalid") }
            #expect(warning.line.text.contains("cannot resolve peer 'nas.invalid' (--peer)"), "\(warning.line.text)")
            #expect(warning.line.text.hasPrefix("warning: "), "\(warning.line.text)")
            _ = try unresolved.waitForLine("the monitor running on") { !$0.isError }
            unresolved.stop()

            // The monitor's header names its unicast peers (on h3, which takes no part below).
            let monitor = try LabProcess("monitor", lab: lab, host: 3, [stage.baton, "monitor", "--peer", h1, "--name", "e2e-m"])
            let header = try monitor.waitForLine("the monitor's header") { !$0.isError }
            monitor.stop()
            #expect(header.line.text.contains("+ unicast \(h1):\(E2E.port)"), "\(header.line.text)")

            // Counter: a on h1 (--peer), continued on h2 by b (BATON_PEERS).
            let logA = stage.tmux.directory.appendingPathComponent("a.log").path
            let a = try stage.baton("a", on: 1, ["counter", "--name", "e2e-a", "--peer", h2, "--log-file", logA])
            try a.waitForScreen("a's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
            try a.type("+++")
            try a.waitForScreen("a's counter at 3") { EndToEndTests.screen($0, showsCount: 3) }
            let b = try stage.tmux.start(
                "b", namespace: lab.namespace(host: 2),
                command: [stage.baton, "--continue-activity", "dev.baton.counter", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b"],
                environment: ["BATON_PEERS": "\(h1), \(h1):\(E2E.port)"])
            try b.waitForScreen("b's counter at 3") { EndToEndTests.screen($0, showsCount: 3) }
            try b.waitForScreen(containing: "Continued from e2e-a")
            try a.waitForScreen(containing: "Continued on e2e-b")
            let logText = (try? String(contentsOfFile: logA, encoding: .utf8)) ?? ""
            #expect(logText.contains("+ unicast \(h2):\(E2E.port)"), "a's log does not name its unicast peer:\n\(logText)")

            // And back: b counts on, a quits, and a2 on h1 continues b's count.
            try b.type("++")
            try b.waitForScreen("b's counter at 5") { EndToEndTests.screen($0, showsCount: 5) }
            try a.type("q")
            try a.expectExit(0)
            let a2 = try stage.baton("a2", on: 1, [
                "--continue-activity", "dev.baton.counter", "--from", "e2e-b", "--wait", "5", "--name", "e2e-a2", "--peer", h2,
            ])
            try a2.waitForScreen("a2's counter at 5") { EndToEndTests.screen($0, showsCount: 5) }
            try b.waitForScreen(containing: "Continued on e2e-a2")
            try a2.type("q")
            try b.type("q")
            try a2.expectExit(0)
            try b.expectExit(0)

            // Editing, larger than a datagram: an OFFER by unicast, the text fetched over TCP from
            // its source address. e on h1 has its peer in the peers file.
            let lines = (1...60).map { String(format: "line %03d of a text handed off by unicast, not multicast", $0) }
            let file = stage.tmux.directory.appendingPathComponent("big.txt")
            try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
            let configE = stage.tmux.directory.appendingPathComponent("e/config/baton")
            try FileManager.default.createDirectory(at: configE, withIntermediateDirectories: true)
            try "# the other lab host\n\n\(h2)   # h2\n".write(
                to: configE.appendingPathComponent("peers"), atomically: true, encoding: .utf8)
            let e = try stage.baton("e", on: 1, ["edit", file.path, "--name", "e2e-e"])
            try e.waitForScreen(containing: "line 001")
            try e.type("X")
            try e.waitForScreen(containing: "Xline 001")
            let f = try stage.tmux.start(
                "f", namespace: lab.namespace(host: 2),
                command: [stage.baton, "--continue-activity", "dev.baton.editing", "--from", "e2e-e", "--wait", "5", "--name", "e2e-f"],
                environment: ["BATON_PEERS": h1])
            try f.waitForScreen(containing: "Xline 001", timeout: 15)
            try f.waitForScreen(containing: "line 020")
            try e.waitForScreen(containing: "Continued on e2e-f")

            // And the edit back: f types on h2 (its cursor where e's was, after the X), e2 on h1 (--peer)
            // continues f's text.
            try f.type("Y")
            try f.waitForScreen(containing: "XYline 001")
            let e2 = try stage.baton("e2", on: 1, [
                "--continue-activity", "dev.baton.editing", "--from", "e2e-f", "--wait", "5", "--name", "e2e-e2", "--peer", h2,
            ])
            try e2.waitForScreen(containing: "XYline 001", timeout: 15)
            try e2.waitForScreen(containing: "line 020")
            try f.waitForScreen(containing: "Continued on e2e-e2")

            // baton doctor on h2, naming h1: multicast fails, h1 (e, which lists h2) answers by
            // unicast, so the first fix to try is --peer.
            let doctor = try Command.run(
                lab.command(host: 2, [stage.baton, "doctor", "--peer", h1, "--listen", "2"]),
                environment: LabFaultTests.commandEnvironment, check: false, timeout: 30)
            #expect(doctor.status == 1, "exit \(doctor.status):\n\(doctor.output)")
            #expect(doctor.output.contains("unicast peers: \(h1) answered by unicast"), "\(doctor.output)")
            #expect(doctor.output.contains("First thing to try: multicast does not pass here, but \(h1) answers by unicast: "
                + "run baton with `--peer \(h1)`"), "\(doctor.output)")

            // Multicast really was dropped on both hosts all along.
            let drops = try [1, 2].map { try Self.multicastDrops(lab, host: $0) }
            #expect(drops.allSatisfy { $0 > 0 }, "multicast drops on h1, h2: \(drops)")
        }
    }
}
