import Foundation
import Testing

extension EndToEndTests {
    @Test("Continued, a counter follows live on its first host; t takes the baton back and the other host follows in turn")
    func counterFollowsAndIsTakenBack() throws {
        try Stage.run(hosts: 3) { stage in
            let a = try stage.baton("a", on: 1, ["counter", "--name", "e2e-a"])
            try a.waitForScreen("a's counter at 0") { Self.screen($0, showsCount: 0) }
            for _ in 0..<3 { try a.type("+") }
            try stage.listener.waitForEvent("e2e-a's count 3") { $0.peerName == "e2e-a" && $0.int("count") == 3 }

            let b = try stage.baton("b", on: 2, [
                "--continue-activity", "dev.baton.counter", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
            ])
            try b.waitForScreen("b's counter at 3") { Self.screen($0, showsCount: 3) }
            try a.waitForScreen(containing: "Following e2e-b — read-only · t takes the baton back")
            // What b counts shows on a; what is typed on a counts nowhere.
            try b.type("+")
            try b.type("+")
            try a.waitForScreen("a following at 5") { Self.screen($0, showsCount: 5) }
            try a.type("+")
            try a.waitForScreen(containing: "read-only")
            #expect(Self.screen(try a.capture(), showsCount: 5))

            // t on a: the baton comes back with the newest count, and b follows.
            try a.type("t")
            try b.waitForScreen(containing: "Following e2e-a — read-only · t takes the baton back")
            try a.type("+")
            try b.waitForScreen("b following at 6") { Self.screen($0, showsCount: 6) }
            try stage.listener.waitForEvent("e2e-a publishing 6 again") { $0.peerName == "e2e-a" && $0.int("count") == 6 }

            try b.type("q")
            try a.type("q")
            try b.expectExit(0)
            try a.expectExit(0)
        }
    }

    @Test("A third host follows an editing session with baton follow: the text and cursor as they change, nothing typed there counts")
    func thirdHostFollowsAnEdit() throws {
        try Stage.run(hosts: 3) { stage in
            let a = try stage.baton("a", on: 1, ["edit", "--name", "e2e-a"])
            try a.waitForScreen(containing: "(unnamed)")
            try a.type("first line")
            try stage.listener.waitForEvent("e2e-a's text") { $0.peerName == "e2e-a" && $0.string("text") == "first line" }

            let c = try stage.baton("c", on: 2, ["follow", "dev.baton.editing", "--from", "e2e-a", "--wait", "5", "--name", "e2e-c"])
            try c.waitForScreen(containing: "Following e2e-a — read-only")
            try c.waitForScreen("c shows a's text") { $0.count > 1 && $0[1] == "first line" }
            try a.press("Enter")
            try a.type("second")
            try c.waitForScreen("c shows the second line") { $0.count > 2 && $0[1] == "first line" && $0[2] == "second" }
            // The cursor too: where a's is, after "second".
            try c.waitForCursor(x: 6, y: 2, "c's cursor where a's is")
            let cursorA = try a.cursor()
            #expect(cursorA.x == 6 && cursorA.y == 2)
            try c.type("zzz")
            try c.waitForScreen(containing: "read-only")
            #expect(try c.capture()[2] == "second")
            try stage.listener.waitForEvent("e2e-a's two lines") { $0.peerName == "e2e-a" && $0.string("text") == "first line\nsecond" }

            try c.press("C-q")
            try c.expectExit(0)
        }
    }

    @Test("A follower whose link is cut says so, the typist goes on, and once the link is back the follower shows the newest count")
    func followerLinkCutAndRestored() throws {
        try Stage.run(hosts: 3) { stage in
            let a = try stage.counter("a", on: 1, name: "e2e-a", count: 2)
            let b = try stage.continueCounter("b", on: 2, name: "e2e-b", from: (a, "e2e-a"), count: 2)
            try a.waitForScreen(containing: "Following e2e-b")
            // h1 and h2 stop hearing each other: h1 drops all from and to h2.
            let h2 = stage.lab.address(host: 2)
            let nft = { (arguments: [String]) in _ = try Command.run(stage.lab.command(host: 1, ["nft"] + arguments)) }
            guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
            try nft(["add", "table", "inet", "cut"])
            try nft(["add", "chain", "inet", "cut", "input", "{ type filter hook input priority 0 ; }"])
            try nft(["add", "chain", "inet", "cut", "output", "{ type filter hook output priority 0 ; }"])
            try nft(["add", "rule", "inet", "cut", "input", "ip", "saddr", h2, "drop"])
            try nft(["add", "rule", "inet", "cut", "output", "ip", "daddr", h2, "drop"])
            // The typist is not held up: b counts on at once.
            try b.type("+++")
            try b.waitForScreen("b's counter at 5", timeout: 2) { EndToEndTests.screen($0, showsCount: 5) }
            // The stream's keep-alive notices within 15 s (docs/PROTOCOL.md §10); a says so.
            try a.waitForScreen(containing: "link lost", timeout: 30)
            #expect(EndToEndTests.screen(try a.capture(), showsCount: 2))
            try nft(["delete", "table", "inet", "cut"])
            // a opens the stream again (every 8 s at the latest) and takes the whole state.
            try a.waitForScreen("a following at 5 again", timeout: 30) { lines in
                EndToEndTests.screen(lines, showsCount: 5) && lines.contains { $0.contains("Following e2e-b — read-only") }
            }
            try stage.quit(a, b)
        }
    }
}
