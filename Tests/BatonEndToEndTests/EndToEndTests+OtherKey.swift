import Foundation
import Testing

extension EndToEndTests {
    /// A key that is not `E2E.key` (base64 of 32 bytes).
    static let otherKey = Data(String(repeating: "k", count: 32).utf8).base64EncodedString()

    /// The screen as one string: a message longer than a row wraps onto the next.
    static func joined(_ lines: [String]) -> String { lines.joined() }

    @Test("Another key: monitor says which address and what to do; --continue-activity says it too; a fresh machine is told its key is new")
    func anotherKeyIsSaid() throws {
        try Stage.run(hosts: 3) { stage in
            let a = try stage.baton("a", on: 1, ["counter", "--name", "e2e-a"])
            try a.waitForScreen("a's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
            let from = stage.lab.address(host: 1)

            // The monitor under another key: within a second or two, a line with a's address.
            let monitor = try stage.tmux.start(
                "m", namespace: stage.lab.namespace(host: 2), command: [stage.baton, "monitor", "--name", "e2e-m"],
                environment: ["BATON_KEY": Self.otherKey], width: 250)
            let screen = try monitor.waitForScreen(containing: "# another group key: datagrams from \(from)", timeout: 5)
            let hint = screen.first { $0.contains("# another group key") } ?? ""
            // The way in is pairing: a key alone lets no machine in.
            #expect(hint.contains("baton pair") && hint.contains("baton pair --join"), "hint: \(hint)")
            try monitor.waitForScreen(containing: "authenticationFailed=", timeout: 5)
            // A second machine under the same other key: only its address is said, once; a's
            // repeats meanwhile are not said again.
            let a3 = try stage.baton("a3", on: 3, ["counter", "--name", "e2e-a3"])
            try a3.waitForScreen("a3's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
            let third = stage.lab.address(host: 3)
            try monitor.waitForScreen(containing: "# another group key: datagrams from \(third) too", timeout: 5)
            let lines = try monitor.capture().filter { $0.contains("# another group key") }
            #expect(lines.count == 2, "hint lines: \(lines)")

            // --continue-activity under another key: nothing found, and why.
            try stage.tmux.start(
                "b2", namespace: stage.lab.namespace(host: 2),
                command: [stage.baton, "--continue-activity", "--wait", "1", "--name", "e2e-b2"],
                environment: ["BATON_KEY": Self.otherKey], width: 250)
                .check(exit: 1) { text in
                    #expect(text.contains("No continuable activity"), "b2: \(text)")
                    #expect(text.contains("Datagrams under another group key came from \(from)"), "b2: \(text)")
                    // The key came from BATON_KEY, which takes the place of the key file: that is
                    // what to fix, not the pairing.
                    #expect(text.contains("BATON_KEY is set here and takes the place of the key file"), "b2: \(text)")
                }

            // A fresh machine: no BATON_KEY, no key file; the key made now is shared with no one.
            try stage.tmux.start(
                "c", namespace: stage.lab.namespace(host: 2),
                command: [stage.baton, "--continue-activity", "--wait", "1", "--name", "e2e-c"],
                without: ["BATON_KEY"], width: 250)
                .check(exit: 1) { text in
                    #expect(text.contains("This machine had no group key, so a new one was made"), "c: \(text)")
                    #expect(text.contains("`baton pair --join` here"), "c: \(text)")
                }
        }
    }
}

extension TmuxSession {
    /// Waits for the program to exit with `status`, then hands the screen, as one string, to `body`.
    func check(exit status: Int32, _ body: (String) -> Void) throws {
        #expect(try waitForExit(timeout: 15) == status, "exit status; screen:\n\(screenDump())")
        body(EndToEndTests.joined(try capture()))
    }
}
