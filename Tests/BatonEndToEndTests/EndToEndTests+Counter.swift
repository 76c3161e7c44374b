import Foundation
import Testing

extension EndToEndTests {
    @Test("A counter at 5 on h1 continues on h2 at 5, and h1 then says it was continued there")
    func counterContinuesOnAnotherHost() throws {
        try Stage.run(hosts: 3) { stage in
            let a = try stage.baton("a", on: 1, ["counter", "--name", "e2e-a"])
            try a.waitForScreen("a's counter at 0") { Self.screen($0, showsCount: 0) }
            #expect(try a.isOnAlternateScreen())
            for _ in 0..<5 { try a.type("+") }
            try a.waitForScreen("a's counter at 5") { Self.screen($0, showsCount: 5) }
            // Only continue once the network has the 5 (what a person would also wait for).
            try stage.listener.waitForEvent("e2e-a's count 5") {
                $0.peerName == "e2e-a" && $0.type == "dev.baton.counter" && $0.int("count") == 5
            }

            let b = try stage.baton("b", on: 2, [
                "--continue-activity", "dev.baton.counter", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
            ])
            try b.waitForScreen("b's counter at 5") { Self.screen($0, showsCount: 5) }
            try b.waitForScreen(containing: "Continued from e2e-a")
            try a.waitForScreen(containing: "Continued on e2e-b")
            // b now owns the activity: its count is what the network sees.
            try stage.listener.waitForEvent("e2e-b's count 5") {
                $0.peerName == "e2e-b" && $0.type == "dev.baton.counter" && $0.int("count") == 5
            }

            // Both quit with q and leave their terminals as they found them.
            try b.type("q")
            try a.type("q")
            try b.expectExit(0)
            try a.expectExit(0)
            try Self.expectSaneTerminal(a)
            try Self.expectSaneTerminal(b)
        }
    }

    @Test("SIGTERM to a running counter: the terminal is restored and peers forget it at once")
    func terminatedCounterRestoresTheTerminal() throws {
        try Stage.run(hosts: 2) { stage in
            let a = try stage.baton("a", on: 1, ["counter", "--name", "e2e-a"])
            try a.waitForScreen("a's counter at 0") { Self.screen($0, showsCount: 0) }
            try a.type("+")
            try a.type("+")
            try a.waitForScreen("a's counter at 2") { Self.screen($0, showsCount: 2) }
            try stage.listener.waitForEvent("e2e-a's count 2") { $0.peerName == "e2e-a" && $0.int("count") == 2 }
            #expect(try a.isOnAlternateScreen())

            let mark = stage.listener.mark
            try a.kill(SIGTERM)
            #expect(try a.waitForExit(timeout: 5) == 128 + SIGTERM)
            try Self.expectSaneTerminal(a)
            // A WITHDRAW, not the 3.5 s expiry: it is at least 2.5 s after the last announce.
            try stage.listener.waitForEvent("e2e-a to withdraw", since: mark, timeout: 2) {
                $0.peerName == "e2e-a" && $0.event == "gone"
            }
        }
    }
}
