import Foundation
import Testing

extension LabFaultTests.LargeState {
    /// `baton edit` on h1 (named e2e-a, its stream on port 47789) of a file of about `bytes` of
    /// mixed-script text whose first line is `first`, in `folder`/h1, once its text shows.
    static func editLarge(_ stage: Stage, _ folder: ScratchFolder, bytes: Int, seed: UInt64, first: String) throws -> TmuxSession {
        let source = folder.path("h1/big.txt")
        try Data(MixedText.make(bytes: bytes, seed: seed, first: first).utf8).write(to: URL(fileURLWithPath: source))
        let a = try stage.baton(
            "a", on: 1, ["edit", source, "--name", "e2e-a", "--stream-port", "47789"], workingDirectory: folder.path("h1"))
        try a.waitForScreen("a's text", timeout: 20) { $0.count > 1 && $0[1] == first }
        return a
    }

    @Test("A large session whose state stream is blocked: --continue-activity says Connecting… at once, names the port at the end; Esc cancels and gives the terminal back")
    func blockedStreamIsSaid() throws {
        guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
        try Stage.run(hosts: 3) { stage in
            let folder = try ScratchFolder("large-blocked")
            defer { folder.remove() }
            _ = try Self.editLarge(stage, folder, bytes: 300_000, seed: 3, first: "Large state, blocked stream")
            // h1 drops what arrives on its stream port, as a firewall that was never told of it.
            try Command.run(stage.lab.command(host: 1, [
                "nft", "add table inet e2e-block; add chain inet e2e-block input { type filter hook input priority 0 ; } ; "
                    + "add rule inet e2e-block input tcp dport 47789 drop",
            ]))
            let from = stage.lab.address(host: 1)

            // Connecting… within a moment, then, after the retries, the port to open.
            let b = try stage.baton(
                "b", on: 2, ["edit", "--continue-activity", "--from", "e2e-a", "--wait", "10", "--name", "e2e-b"],
                width: 200, workingDirectory: folder.path("h2"))
            let connecting = try b.waitForScreen(containing: "Connecting… · 0 bytes of", timeout: 12)
            #expect(connecting.contains { $0.contains("from e2e-a · Esc cancels") }, "screen:\n\(b.screenDump())")
            #expect(try b.waitForExit(timeout: 30) == 1, "screen:\n\(b.screenDump())")
            let failed = EndToEndTests.joined(try b.capture())
            #expect(failed.contains("TCP port 47789 on \(from), did not answer"), "screen:\n\(b.screenDump())")
            #expect(failed.contains("Nothing was restored."))
            #expect(!failed.contains(".."), "screen:\n\(b.screenDump())")
            #expect(!failed.contains("Connecting…"), "the line was not cleared:\n\(b.screenDump())")

            // Esc stops it at once, with nothing restored, and the terminal's modes as they were.
            let c = try stage.baton(
                "c", on: 2, ["edit", "--continue-activity", "--from", "e2e-a", "--wait", "10", "--name", "e2e-c"],
                width: 200, workingDirectory: folder.path("h2"))
            try c.waitForScreen(containing: "Esc cancels", timeout: 12)
            try c.press("Escape")
            #expect(try c.waitForExit(timeout: 5) == 1, "screen:\n\(c.screenDump())")
            #expect(EndToEndTests.joined(try c.capture()).contains("The continue was cancelled; nothing was restored."),
                "screen:\n\(c.screenDump())")
            let settings = try c.settings()
            #expect(settings.after == settings.before, "stty -g differs after baton")
        }
    }

    @Test("A large session's fetch cut midway: the progress line says waiting instead of a rate that stands still, and the fetch goes on when the link is back")
    func cutFetchSaysWaiting() throws {
        guard Command.which("nft") != nil, Command.which("tc") != nil else { try skip("nft or tc is not installed (apt-get install -y nftables iproute2)") }
        try Stage.run(hosts: 2) { stage in
            let folder = try ScratchFolder("large-cut")
            defer { folder.remove() }
            let first = "Large state, cut midway"
            _ = try Self.editLarge(stage, folder, bytes: 4_000_000, seed: 5, first: first)
            // h1 sends at 8 Mbit/s (a token bucket on its side of the bridge): the 4 MB take about 4 s.
            try Command.run(stage.lab.command(host: 1, ["tc", "qdisc", "add", "dev", "v0", "root", "tbf", "rate", "8mbit", "burst", "32kbit", "latency", "400ms"]))

            let b = try stage.baton(
                "b", on: 2, ["edit", "--continue-activity", "--from", "e2e-a", "--wait", "10", "--name", "e2e-b"],
                width: 200, workingDirectory: folder.path("h2"))
            let moving = try b.waitForScreen("b's progress line to show a rate", timeout: 15) { lines in
                lines.contains { $0.contains(" MB of ") && $0.contains("/s · from e2e-a") }
            }
            // h2 drops what h1's stream sends: nothing arrives, and the line must not keep the last rate.
            try Command.run(stage.lab.command(host: 2, [
                "nft", "add table inet e2e-cut; add chain inet e2e-cut input { type filter hook input priority 0 ; } ; "
                    + "add rule inet e2e-cut input ip saddr \(stage.lab.address(host: 1)) tcp sport 47789 drop",
            ]))
            let waiting = try b.waitForScreen(containing: "waiting", timeout: 10)
            let line = try #require(waiting.first { $0.contains("waiting") })
            #expect(line.contains(" MB of ") && line.contains("from e2e-a") && !line.contains("/s"), "line: \(line)\nbefore: \(moving)")
            try Command.run(stage.lab.command(host: 2, ["nft", "delete table inet e2e-cut"]))

            // The link back, the fetch goes on (the same connection or a resumed one) and the text opens.
            try b.waitForScreen("b's editor with the text", timeout: 40) { $0.count > 1 && $0[1] == first }
            try b.press("C-q")
        }
    }
}
