import Foundation
import Testing

/// Nested in `LabFaultTests` (serialized): these labs run one after another with the floods and
/// faults there, not beside them, so that neither starves the other's deadlines.
extension LabFaultTests {
    /// Issue 15, "unicast stands on its own": networks where multicast fails (an interface without
    /// the MULTICAST flag and no multicast route, as WireGuard gives; a firewall that drops multicast
    /// on output) and an address that changes mid-session. `--peer` is given on one side only: the
    /// other side learns it from what it accepts.
    ///
    /// Needs root, `ip netns`, `nft`, tmux and the built programs; skips, saying why, without them.
    @Suite("Reach: unicast on its own, learnt peers, address changes (netlab + tmux)", .serialized, .timeLimit(.minutes(3)))
    struct ReachLabTests {
        /// Host `host` as a WireGuard-like host: no MULTICAST flag on v0, no multicast route.
        static func withoutMulticast(_ lab: Lab, host: Int) throws {
            try Command.run(lab.command(host: host, ["ip", "link", "set", "v0", "multicast", "off"]))
            try Command.run(lab.command(host: host, ["ip", "route", "del", "224.0.0.0/4", "dev", "v0"]))
        }

        /// Host `host`'s firewall drops multicast on output, so sending to the group fails with EPERM.
        static func dropMulticastOutput(_ lab: Lab, host: Int) throws {
            guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
            for arguments in [
                ["add", "table", "inet", "reach"],
                ["add", "chain", "inet", "reach", "output", "{ type filter hook output priority 0 ; }"],
                ["add", "rule", "inet", "reach", "output", "ip", "daddr", "224.0.0.0/4", "counter", "drop"],
            ] {
                try Command.run(lab.command(host: host, ["nft"] + arguments))
            }
        }

        @Test("No MULTICAST flag and no route on both hosts, --peer on one side only: a counter and a 200 KB edit continue, and the source is told")
        func unicastOnly() throws {
            try Stage.run(hosts: 3) { stage in
                let lab = stage.lab
                try Self.withoutMulticast(lab, host: 1)
                try Self.withoutMulticast(lab, host: 2)
                let h2 = lab.address(host: 2)

                // a names h2; b names nobody and learns a from a's unicast repeats.
                let a = try stage.counter("a", on: 1, name: "e2e-a", count: 3, ["--peer", h2])
                try a.waitForScreen(containing: "multicast unavailable (no multicast route): unicast only")
                let b = try stage.continueCounter("b", on: 2, name: "e2e-b", from: (a, "e2e-a"), count: 3)
                try stage.quit(a, b)

                // 200 KB: an OFFER by unicast, the text fetched over TCP from its source address; the
                // continuing side names nobody.
                let folder = try ScratchFolder("reach-200k")
                defer { folder.remove() }
                let text = MixedText.make(bytes: 200_000, seed: 15, first: "Reach, 200 KB: ça va? 你好 🎉")
                let source = folder.path("h1/notes.txt")
                try Data(text.utf8).write(to: URL(fileURLWithPath: source))
                let e = try stage.baton("e", on: 1, ["edit", source, "--name", "e2e-e", "--peer", h2])
                try e.waitForScreen(containing: "notes.txt", timeout: 20)
                let out = folder.path("h2/continued.txt")
                let result = try Command.run(
                    lab.command(host: 2, stage.peer + [
                        "continue", "--type", "dev.baton.editing", "--from", "e2e-e", "--wait", "10",
                        "--name", "e2e-f", "--no-user-info", "--save-text", out,
                    ]), environment: LabFaultTests.commandEnvironment, check: false, timeout: 30)
                #expect(result.status == 0, "continue failed: \(result.output)\(result.errorOutput)")
                let written = (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data()
                #expect(written == Data(text.utf8), "\(written.count) bytes saved, want \(text.utf8.count)")
                try e.waitForScreen(containing: "Continued on e2e-f")
            }
        }

        @Test("Multicast dropped on output on both hosts: the counter goes there and back by unicast, one side naming the other")
        func outputDropBothWays() throws {
            try Stage.run(hosts: 3) { stage in
                let lab = stage.lab
                try Self.dropMulticastOutput(lab, host: 1)
                try Self.dropMulticastOutput(lab, host: 2)
                let h2 = lab.address(host: 2)

                let a = try stage.counter("a", on: 1, name: "e2e-a", count: 2, ["--peer", h2])
                // The first multicast send failed: a says so, and is not offline.
                try a.waitForScreen(containing: "multicast unavailable (a firewall refuses it): unicast only")
                let b = try stage.continueCounter("b", on: 2, name: "e2e-b", from: (a, "e2e-a"), count: 2)
                #expect(try !a.capture().joined().contains("Offline"))

                // And back: b counts on, a quits, a2 on h1 (naming h2 again) continues b's count.
                try b.type("+++")
                try b.waitForScreen("b's counter at 5") { EndToEndTests.screen($0, showsCount: 5) }
                try stage.quit(a)
                let a2 = try stage.continueCounter("a2", on: 1, name: "e2e-a2", from: (b, "e2e-b"), count: 5, ["--peer", h2])
                try stage.quit(a2, b)
            }
        }

        @Test("Host 1's address is replaced mid-session: it stays online, and a peer started afterwards continues its newest count")
        func addressChange() throws {
            try Stage.run(hosts: 3) { stage in
                let lab = stage.lab
                let logA = stage.tmux.directory.appendingPathComponent("a.log").path
                let a = try stage.counter("a", on: 1, name: "e2e-a", count: 2, ["--log-file", logA])

                // A new lease: the new address comes, the old one goes, and the route follows.
                try lab.renumber(host: 1, to: "10.77.0.41")
                // The change is followed (the interfaces are looked at every second) and said in the log.
                let read = { (try? String(contentsOfFile: logA, encoding: .utf8)) ?? "" }
                try Wait.until("a's log to show the new address", timeout: 10, lastSeen: read) {
                    read().contains("on v0 (10.77.0.41)")
                }
                try a.type("+++")
                try a.waitForScreen("a's counter at 5") { EndToEndTests.screen($0, showsCount: 5) }
                _ = try stage.continueCounter("b", on: 2, name: "e2e-b", from: (a, "e2e-a"), count: 5)
                let screen = try a.capture().joined(separator: "\n")
                #expect(!screen.contains("Offline") && !screen.contains("unavailable"), "\(screen)")
            }
        }

        @Test("A counter ticking every second, heard for 6 s: every datagram is accepted, none counted as replay")
        func tickingCounterHasNoReplays() throws {
            let peer = try Binaries.peer()
            let lab = try Lab(hosts: 2)
            defer { lab.down() }
            let listener = try LabFaultTests.listener(lab, host: 2, peer: peer)
            defer { listener.stop() }
            let ticker = try LabFaultTests.announcer(lab, host: 1, peer: peer, name: "e2e-tick", every: 1)
            defer { ticker.stop() }
            // Each second a new revision and the old one's repeat fall due together; the repeat, sealed
            // first, must leave first. 8 accepted datagrams take a little over 6 s.
            let (_, line) = try listener.waitForLine("8 accepted datagrams", timeout: 20) {
                (ReceiveCounts($0)?.accepted ?? 0) >= 8
            }
            let counts = try #require(ReceiveCounts(line))
            #expect(counts["replay"] == 0, "\(line.text)")
            #expect(counts.rejectedTotal == 0, "\(line.text)")
        }
    }
}
