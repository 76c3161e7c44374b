import Foundation
import Testing

extension LabFaultTests.RelayLabTests {
    @Test("Across the router: a baton shell on one site is driven from the other through the broker, and taken back")
    func shellAcrossSites() throws {
        try Stage.run(hosts: 3, sites: true) { stage in
            let broker = try Broker(stage.lab)
            defer { broker.stop() }
            // The lab's programs are one device: the other site drives at once, without a question.
            let a = try stage.baton("a", on: 1, ["shell", "--name", "e2e-a"] + Self.relay(stage.lab) + ["--", "/bin/sh"])
            try a.type("echo siteA$((1+1))")
            try a.press("Enter")
            try a.waitForScreen(containing: "siteA2")
            let b = try stage.baton("b", on: 2, [
                "--continue-activity", "dev.baton.shell", "--from", "e2e-a", "--wait", "10", "--name", "e2e-b",
            ] + Self.relay(stage.lab))
            try b.waitForScreen(containing: "siteA2", timeout: 20)
            try a.waitForScreen(containing: "Following the session on e2e-a (e2e-b drives)")
            try b.type("echo siteB$((2+2))")
            try b.press("Enter")
            try a.waitForScreen(containing: "siteB4")
            try a.type("t")
            try b.waitForScreen(containing: "(e2e-a drives)")
            try a.type("exit 4")
            try a.press("Enter")
            try a.expectExit(4)
            try b.expectExit(4)
        }
    }
}
