import Foundation
import Testing

extension LabFaultTests.LargeState {
    @Test("A large session whose state stream is blocked: --continue-activity says Connecting… at once, names the port at the end; Esc cancels and gives the terminal back")
    func blockedStreamIsSaid() throws {
        guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
        try Stage.run(hosts: 3) { stage in
            let folder = try ScratchFolder("large-blocked")
            defer { folder.remove() }
            let first = "Large state, blocked stream"
            let source = folder.path("h1/big.txt")
            try Data(MixedText.make(bytes: 300_000, seed: 3, first: first).utf8).write(to: URL(fileURLWithPath: source))
            let a = try stage.baton(
                "a", on: 1, ["edit", source, "--name", "e2e-a", "--stream-port", "47789"], workingDirectory: folder.path("h1"))
            try a.waitForScreen("a's text", timeout: 20) { $0.count > 1 && $0[1] == first }
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
}
