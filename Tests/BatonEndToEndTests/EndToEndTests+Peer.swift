import Foundation
import Testing

extension EndToEndTests {
    /// The harness itself, with `baton peer` only: an announcer in a tmux pane on host 1, a
    /// listener on host 3, and `baton peer continue` on host 2.
    @Test("Smoke: baton peer announces in a pane on h1, h2 continues it, h3 hears it")
    func peerSmoke() throws {
        let peer = try Binaries.peer()
        let lab = try Lab(hosts: 3)
        defer { lab.down() }
        let tmux = try TmuxHost()
        defer { tmux.shutdown() }
        let listener = try PeerListener(lab: lab, host: 3, peer: peer)
        defer { listener.stop() }

        let announcer = try tmux.start("a", namespace: lab.namespace(host: 1), command: peer + [
            "announce", "--name", "e2e-a", "--type", "dev.baton.counter", "--user-info", #"{"count":5}"#,
        ])
        try announcer.waitForScreen(containing: "announcing dev.baton.counter as e2e-a")
        try announcer.waitForScreen(containing: "on v0")
        let heard = try listener.waitForEvent("e2e-a announce count 5") { $0.peerName == "e2e-a" && $0.int("count") == 5 }
        #expect(heard.type == "dev.baton.counter")

        // The continuing side is the lab's one device too, in a config folder of its own.
        let config = tmux.directory.appendingPathComponent("continue-config").path
        try E2E.giveSharedIdentity(config: config)
        let result = try Command.run(
            lab.command(host: 2, peer + ["continue", "--type", "dev.baton.counter", "--from", "e2e-a", "--wait", "3", "--name", "e2e-b"]),
            environment: ["BATON_KEY": E2E.key, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "XDG_CONFIG_HOME": config])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "dev.baton.counter")
        #expect((object["userInfo"] as? [String: Any])?["count"] as? Int == 5)
        #expect(object["peer"] as? String == "e2e-a")
        try announcer.waitForScreen(containing: "continued by e2e-b")

        // SIGTERM: the announcer withdraws, the listener sees it go, and the pane is as it was.
        try announcer.kill(SIGTERM)
        try announcer.expectExit(143)
        try listener.waitForEvent("e2e-a withdraw") { $0.peerName == "e2e-a" && $0.event == "gone" }
        try Self.expectSaneTerminal(announcer)
    }
}
