import Foundation
import Testing

/// `baton pair` between two lab hosts, in tmux, with no `BATON_KEY` anywhere: each side has a key
/// file of its own (docs/PROTOCOL.md, section 15). Skips, saying why, without root, `ip netns`,
/// tmux or the built programs.
@Suite("Pairing end to end (netlab + tmux)", .serialized, .ownThread, .timeLimit(.minutes(2)))
struct PairEndToEndTests {
    /// Where key file `name` goes, in the stage's keys folder (made, mode 0700); the file is not written.
    static func keyPath(_ stage: Stage, _ name: String) throws -> String {
        let keys = stage.tmux.directory.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return keys.appendingPathComponent("\(name).key").path
    }

    /// Key file `name` holding a fresh random group key (mode 0600): its path and its bytes.
    static func randomKeyFile(_ stage: Stage, _ name: String) throws -> (path: String, bytes: Data) {
        let path = try keyPath(stage, name)
        let bytes = Data((Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() + "\n").utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: bytes, attributes: [.posixPermissions: 0o600]))
        return (path, bytes)
    }

    /// `baton ARGUMENTS` on lab host `host`, without BATON_KEY; with `machine`, in that session's
    /// config folder (its identity and device list: the same machine), else in a folder of its own.
    static func start(
        _ stage: Stage, _ name: String, on host: Int, _ arguments: [String], as machine: TmuxSession? = nil
    ) throws -> TmuxSession {
        let config = machine.map { ["XDG_CONFIG_HOME": $0.directory.appendingPathComponent("config").path] } ?? [:]
        return try stage.tmux.start(
            name, namespace: stage.lab.namespace(host: host), command: [stage.baton] + arguments, environment: config,
            without: ["BATON_KEY"])
    }

    /// The `Code: ddd ddd` line on the screen, once it is there.
    static func code(_ session: TmuxSession) throws -> String {
        let lines = try session.waitForScreen("\(session.name) to show a code") { lines in
            lines.contains { $0.hasPrefix("Code: ") }
        }
        return lines.first { $0.hasPrefix("Code: ") }!
    }

    /// `baton ARGUMENTS --json` run with `session`'s config folder (its identity and device list), parsed.
    static func json(_ stage: Stage, _ session: TmuxSession, _ arguments: [String]) throws -> Any {
        let environment = [
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": session.directory.path,
            "XDG_CONFIG_HOME": session.directory.appendingPathComponent("config").path, "LANG": "C.UTF-8",
        ]
        let result = try Command.run([stage.baton] + arguments + ["--json"], environment: environment, timeout: 10)
        return try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    }

    /// The fingerprint `baton id` prints with `session`'s config folder.
    static func fingerprint(_ stage: Stage, _ session: TmuxSession) throws -> String? {
        (try json(stage, session, ["id"]) as? [String: Any])?["fingerprint"] as? String
    }

    /// (name, fingerprint) of every device `baton devices` lists with `session`'s config folder.
    static func devices(_ stage: Stage, _ session: TmuxSession) throws -> [[String]] {
        let list = try json(stage, session, ["devices"]) as? [[String: Any]] ?? []
        return list.map { [$0["name"] as? String ?? "?", $0["fingerprint"] as? String ?? "?"] }
    }

    static func answer(_ session: TmuxSession, _ text: String) throws {
        try session.type(text)
        try session.press("Enter")
    }

    @Test("Same code on both screens; a no changes no key file; two yeses give the joiner the key at 0600, and a counter then hands off with it")
    func pairing() throws {
        try Stage.run(hosts: 2) { stage in
            let (sharerKey, sharerBefore) = try Self.randomKeyFile(stage, "a")
            let joinerKey = try Self.keyPath(stage, "b")

            // 1. Declined on the joining side: both end with status 1, nothing written.
            let a1 = try Self.start(stage, "a1", on: 1, ["pair", "--key-file", sharerKey, "--name", "e2e-a", "--timeout", "30"])
            try a1.waitForScreen(containing: "Waiting for `baton pair --join`")
            let b1 = try Self.start(stage, "b1", on: 2, ["pair", "--join", "--key-file", joinerKey, "--name", "e2e-b", "--timeout", "30"])
            let code1 = try Self.code(a1)
            #expect(try Self.code(b1) == code1)
            try Self.answer(a1, "y")
            try Self.answer(b1, "n")
            try b1.expectExit(1)
            try a1.expectExit(1)
            try b1.waitForScreen(containing: "you did not confirm the code")
            try a1.waitForScreen(containing: "the other side did not confirm the code")
            #expect(try Data(contentsOf: URL(fileURLWithPath: sharerKey)) == sharerBefore)
            #expect(!FileManager.default.fileExists(atPath: joinerKey))

            // 2. Confirmed on both sides; timed from both started to both codes, and from the second y to Paired.
            let started = Date()
            let a2 = try Self.start(stage, "a2", on: 1, ["pair", "--key-file", sharerKey, "--name", "e2e-a", "--timeout", "30"])
            let b2 = try Self.start(stage, "b2", on: 2, ["pair", "--join", "--key-file", joinerKey, "--name", "e2e-b", "--timeout", "30"])
            let code2 = try Self.code(a2)
            #expect(try Self.code(b2) == code2)
            let codesShown = Date().timeIntervalSince(started)
            try Self.answer(a2, "y")
            try a2.waitForScreen(containing: "Waiting for the other screen")
            let secondYes = Date()
            try Self.answer(b2, "y")
            try b2.waitForScreen(containing: "Paired with e2e-a")
            try a2.waitForScreen(containing: "Paired with e2e-b")
            let paired = Date().timeIntervalSince(secondYes)
            print("pairing figure: both codes shown \(String(format: "%.3f", codesShown)) s after both started; Paired on both \(String(format: "%.3f", paired)) s after the second y; total \(String(format: "%.3f", codesShown + paired)) s")
            try a2.expectExit(0)
            try b2.expectExit(0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: joinerKey)) == sharerBefore)
            let mode = try FileManager.default.attributesOfItem(atPath: joinerKey)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try Data(contentsOf: URL(fileURLWithPath: sharerKey)) == sharerBefore)

            // Each side lists the other under the fingerprint that `baton id` prints on the other,
            // and each screen showed it beside the code.
            let sharerPrint = try #require(try Self.fingerprint(stage, a2))
            let joinerPrint = try #require(try Self.fingerprint(stage, b2))
            #expect(sharerPrint != joinerPrint)
            #expect(try Self.devices(stage, a2) == [["e2e-b", joinerPrint]])
            #expect(try Self.devices(stage, b2) == [["e2e-a", sharerPrint]])
            try a2.waitForScreen(containing: "fingerprint \(joinerPrint)")
            try b2.waitForScreen(containing: "fingerprint \(sharerPrint)")
            // The declined pairing before listed nobody.
            #expect(try Self.devices(stage, a1).isEmpty)
            #expect(try Self.devices(stage, b1).isEmpty)

            // 3. A counter handoff with the paired key files, BATON_KEY unset on both, each as the
            // machine that paired (its identity and device list): each hears only the devices it lists.
            let c = try Self.start(stage, "c", on: 1, ["counter", "--key-file", sharerKey, "--name", "e2e-a"], as: a2)
            try c.waitForScreen("c's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
            for _ in 0..<3 { try c.type("+") }
            try c.waitForScreen("c's counter at 3") { EndToEndTests.screen($0, showsCount: 3) }
            let d = try Self.start(stage, "d", on: 2, [
                "--continue-activity", "dev.baton.counter", "--from", "e2e-a", "--wait", "5", "--key-file", joinerKey,
                "--name", "e2e-b",
            ], as: b2)
            try d.waitForScreen("d's counter at 3") { EndToEndTests.screen($0, showsCount: 3) }
            try c.waitForScreen(containing: "Continued on e2e-b")
            try d.type("q")
            try c.type("q")
            try d.expectExit(0)
            try c.expectExit(0)
        }
    }

    @Test("Two pairings on one LAN at the same time: both end with status 1, saying so, and no key file changes")
    func anotherPairing() throws {
        try Stage.run(hosts: 2) { stage in
            var before: [String: Data] = [:]
            for name in ["a", "b"] {
                let (path, bytes) = try Self.randomKeyFile(stage, name)
                before[path] = bytes
            }
            let a = try Self.start(stage, "a", on: 1, ["pair", "--key-file", try Self.keyPath(stage, "a"), "--timeout", "30"])
            let b = try Self.start(stage, "b", on: 2, ["pair", "--key-file", try Self.keyPath(stage, "b"), "--timeout", "30"])
            try a.expectExit(1)
            try b.expectExit(1)
            // Each names where it heard the other: a (host 1) heard b (host 2), and b heard a.
            try a.waitForScreen(containing: "another pairing is running on this network (heard from 10.77.0.12)")
            try b.waitForScreen(containing: "another pairing is running on this network (heard from 10.77.0.11)")
            for (path, data) in before { #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data) }
        }
    }

    /// A joiner that commits to one key and reveals another (docs/PROTOCOL.md, section 15): it
    /// connects to 10.77.0.11:47790, sends COMMIT, reads PUBLIC, sends a REVEAL that does not
    /// match, and prints the first byte of what comes back (5 for ABORT) and its reason.
    static let forger = """
        import os, socket, sys
        s = socket.create_connection(("10.77.0.11", 47790), timeout=10)
        frame = lambda t, body: bytes([t]) + len(body).to_bytes(2, "big") + body
        s.sendall(frame(1, b"\\x02" + os.urandom(32) + b"forger"))
        head = s.recv(3); body = b""
        while len(body) < int.from_bytes(head[1:3], "big"): body += s.recv(512)
        assert head[0] == 2, head
        s.sendall(frame(3, os.urandom(128)))
        reply = s.recv(16)
        print("reply", reply[0], reply[3])
        """

    @Test("A REVEAL that does not match its COMMIT: the sharer aborts, says so, shows no code, and its key file stays")
    func forgedReveal() throws {
        try Stage.run(hosts: 2) { stage in
            let (path, before) = try Self.randomKeyFile(stage, "a")
            let a = try Self.start(stage, "a", on: 1, ["pair", "--key-file", path, "--timeout", "30"])
            try a.waitForScreen(containing: "Waiting for `baton pair --join`")
            let result = try Command.run(stage.lab.command(host: 2, ["python3", "-c", Self.forger]), timeout: 20)
            #expect(result.output.contains("reply 5 3"))
            try a.expectExit(1)
            let screen = try a.waitForScreen(containing: "does not match its commitment")
            #expect(!screen.contains { $0.hasPrefix("Code: ") })
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("The sharer's TCP 47790 dropped: the joiner says whom it found and that it is connecting, and --timeout 5 ends it within 5 s")
    func tcpDropped() throws {
        try Stage.run(hosts: 2) { stage in
            let (path, before) = try Self.randomKeyFile(stage, "a")
            let joinerKey = try Self.keyPath(stage, "b")
            for command in [
                ["nft", "add", "table", "inet", "pair"],
                ["nft", "add", "chain", "inet", "pair", "input", "{ type filter hook input priority 0; }"],
                ["nft", "add", "rule", "inet", "pair", "input", "tcp", "dport", "47790", "drop"],
            ] {
                try Command.run(stage.lab.command(host: 1, command))
            }
            let a = try Self.start(stage, "a", on: 1, ["pair", "--key-file", path, "--timeout", "30"])
            try a.waitForScreen(containing: "Waiting for `baton pair --join`")
            let started = Date()
            // Wide enough that the closing sentence is one row.
            let b = try stage.tmux.start(
                "b", namespace: stage.lab.namespace(host: 2),
                command: [stage.baton, "pair", "--join", "--key-file", joinerKey, "--timeout", "5"], without: ["BATON_KEY"],
                width: 200)
            try b.waitForScreen(containing: "Found `baton pair` at 10.77.0.11; connecting to its TCP port 47790…")
            try b.expectExit(1, timeout: 10)
            let elapsed = Date().timeIntervalSince(started)
            #expect(elapsed < 8, "the joiner took \(elapsed) s with --timeout 5")
            try b.waitForScreen(containing: "Cannot reach `baton pair` at 10.77.0.11:47790: no answer within 5 s "
                + "(a firewall there may drop TCP 47790; `baton doctor` there checks).")
            #expect(!FileManager.default.fileExists(atPath: joinerKey))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("--peer reaches the sharer without a HELLO; an unanswered prompt times out on both sides with status 1")
    func peerAndTimeout() throws {
        try Stage.run(hosts: 2) { stage in
            let (path, before) = try Self.randomKeyFile(stage, "a")
            let joinerKey = try Self.keyPath(stage, "b")
            let a = try Self.start(stage, "a", on: 1, ["pair", "--key-file", path, "--timeout", "3"])
            try a.waitForScreen(containing: "Waiting for `baton pair --join`")
            let b = try Self.start(stage, "b", on: 2, ["pair", "--join", "--peer", "10.77.0.11:47790", "--key-file", joinerKey, "--timeout", "3"])
            #expect(try Self.code(a) == Self.code(b))
            // Nobody answers.
            try a.expectExit(1, timeout: 10)
            try b.expectExit(1, timeout: 10)
            try a.waitForScreen(containing: "timed out")
            try b.waitForScreen(containing: "timed out")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(!FileManager.default.fileExists(atPath: joinerKey))
        }
    }
}
