import Foundation
import Testing

extension EndToEndTests {
    @Test("baton shell: another host asks, is let in, drives the shell; the first host follows, cannot type, takes it back; the exit status ends both")
    func shellContinuedAndTakenBack() throws {
        try Stage.run(hosts: 3) { stage in
            let (ma, mb) = try Self.pairedMachines(stage)
            let a = try DeviceLabTests.baton(stage, "a", as: ma, ["shell", "--name", "e2e-a", "--", "/bin/sh"])
            try a.type("echo started$((1+1))")
            try a.press("Enter")
            try a.waitForScreen(containing: "started2")

            let b = try DeviceLabTests.baton(stage, "b", as: mb, [
                "--continue-activity", "dev.baton.shell", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
            ])
            try a.waitForScreen(containing: "e2e-b asks to take this session: y/N")
            try a.type("y")
            try a.waitForScreen(containing: "Following the session on e2e-a (e2e-b drives)")
            try b.waitForScreen(containing: "started2")
            try b.type("echo from$((2+3))b")
            try b.press("Enter")
            try b.waitForScreen(containing: "from5b")
            try a.waitForScreen(containing: "from5b")
            // What is typed on the following host reaches nothing.
            try a.type("echo x")
            try a.waitForScreen(containing: "This terminal follows")
            #expect(!(try b.capture().joined().contains("echo x")))

            // t on a takes the session back at once; b follows.
            try a.type("t")
            try b.waitForScreen(containing: "Following the session on e2e-a (e2e-a drives)")
            try a.type("echo back$((3+4))")
            try a.press("Enter")
            try b.waitForScreen(containing: "back7")

            try a.type("exit 3")
            try a.press("Enter")
            try a.expectExit(3)
            try b.expectExit(3)
        }
    }

    @Test("baton shell: a host nobody lets in is refused with the reason; baton follow watches; Ctrl-] d leaves the program running and --attach brings it back")
    func shellRefusedFollowedDetachedAttached() throws {
        try Stage.run(hosts: 3) { stage in
            let (ma, mb) = try Self.pairedMachines(stage)
            let a = try DeviceLabTests.baton(stage, "a", as: ma, ["shell", "--name", "e2e-a", "--", "/bin/sh"])
            try a.type("echo one$((0+1))")
            try a.press("Enter")
            try a.waitForScreen(containing: "one1")
            let b = try DeviceLabTests.baton(stage, "b", as: mb, [
                "--continue-activity", "dev.baton.shell", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b",
            ])
            try a.waitForScreen(containing: "e2e-b asks to take this session: y/N")
            try a.type("n")
            try b.expectExit(1)
            #expect(try b.capture().joined(separator: " ").contains("e2e-a did not let this terminal take the session: e2e-a said no"))

            let c = try DeviceLabTests.baton(stage, "c", as: mb, ["follow", "dev.baton.shell", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b"])
            try c.waitForScreen(containing: "one1")
            try c.waitForScreen(containing: "Following the session on e2e-a (e2e-a drives)")

            // Ctrl-] d: a's terminal leaves, the shell goes on (c still sees it), and --attach brings it back.
            try a.press("C-]")
            try a.type("d")
            try a.expectExit(0)
            try c.waitForScreen(containing: "nobody drives it now")
            let again = try DeviceLabTests.baton(stage, "a2", as: ma, ["shell", "--attach", "--name", "e2e-a"])
            try again.waitForScreen(containing: "one1")
            try again.type("echo two$((1+1))")
            try again.press("Enter")
            try c.waitForScreen(containing: "two2")
            try c.type("q")
            try c.expectExit(0)
            try again.type("exit")
            try again.press("Enter")
            try again.expectExit(0)
        }
    }

    @Test("baton shell from the nearby list: Enter in the counter's list asks to drive the session and drives it once let in; f in another's list follows it")
    func shellFromNearbyList() throws {
        try Stage.run(hosts: 3) { stage in
            let (ma, mb) = try Self.pairedMachines(stage)
            let a = try DeviceLabTests.baton(stage, "a", as: ma, ["shell", "--name", "e2e-a", "--", "/bin/sh"])
            try a.type("echo listed$((2+2))")
            try a.press("Enter")
            try a.waitForScreen(containing: "listed4")

            // The counter on b: n lists what is nearby; the shell session is there; Enter asks for it.
            let b = try DeviceLabTests.baton(stage, "b", as: mb, ["--name", "e2e-b"])
            try b.waitForScreen("b's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
            try b.type("n")
            try b.waitForScreen(containing: "e2e-a")
            try b.press("Enter")
            try a.waitForScreen(containing: "e2e-b asks to take this session: y/N")
            try a.type("y")
            try b.waitForScreen(containing: "listed4")
            try b.type("echo drove$((3+3))")
            try b.press("Enter")
            try a.waitForScreen(containing: "drove6")

            // f in the list of a counter on a third host follows the session, read-only.
            let c = try DeviceLabTests.baton(stage, "c", as: mb, ["--name", "e2e-c"])
            try c.waitForScreen("c's counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
            try c.type("n")
            try c.waitForScreen(containing: "e2e-a")
            // b's counter left with b: it was withdrawn when b chose the session, not offered on.
            let list = try c.capture().joined(separator: "\n")
            #expect(!list.contains("e2e-b"), "\(list)")
            try c.type("f")
            try c.waitForScreen(containing: "drove6")
            try c.waitForScreen(containing: "Following the session on e2e-a (e2e-b drives)")

            try b.type("exit 4")
            try b.press("Enter")
            try a.expectExit(4)
            try b.expectExit(4)
            try c.expectExit(4)
        }
    }

    @Test("baton shell: a machine removed with baton devices remove loses its terminal on the session at once")
    func shellRemovedDeviceCutOff() throws {
        try Stage.run(hosts: 3) { stage in
            let (ma, mb) = try Self.pairedMachines(stage)
            let a = try DeviceLabTests.baton(stage, "a", as: ma, ["shell", "--name", "e2e-a", "--", "/bin/sh"])
            try a.type("echo here$((0+1))")
            try a.press("Enter")
            try a.waitForScreen(containing: "here1")
            let b = try DeviceLabTests.baton(stage, "b", as: mb, ["follow", "dev.baton.shell", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b"])
            try b.waitForScreen(containing: "here1")
            try DeviceLabTests.run(stage, as: ma, [stage.baton, "devices", "remove", "e2e-b"])
            try b.expectExit(1)
            #expect(try b.capture().joined(separator: " ").contains("the session on e2e-a was lost"))
            // The session goes on for its own machine.
            try a.type("echo still$((1+1))")
            try a.press("Enter")
            try a.waitForScreen(containing: "still2")
            try a.type("exit")
            try a.press("Enter")
            try a.expectExit(0)
        }
    }

    @Test("baton shell: a follower whose link is cut says so, keeps the last screen, and once the link is back shows the newest")
    func shellFollowerLinkCutAndRestored() throws {
        try Stage.run(hosts: 3) { stage in
            guard Command.which("nft") != nil else { try skip("nft is not installed (apt-get install -y nftables)") }
            let a = try stage.baton("a", on: 1, ["shell", "--name", "e2e-a", "--", "/bin/sh"])
            try a.type("echo before$((1+1))")
            try a.press("Enter")
            try a.waitForScreen(containing: "before2")
            let b = try stage.baton("b", on: 2, ["follow", "dev.baton.shell", "--from", "e2e-a", "--wait", "5", "--name", "e2e-b"])
            try b.waitForScreen(containing: "before2")
            // h1 and h2 stop hearing each other.
            let h2 = stage.lab.address(host: 2)
            let nft = { (arguments: [String]) in _ = try Command.run(stage.lab.command(host: 1, ["nft"] + arguments)) }
            try nft(["add", "table", "inet", "cut"])
            try nft(["add", "chain", "inet", "cut", "input", "{ type filter hook input priority 0 ; }"])
            try nft(["add", "chain", "inet", "cut", "output", "{ type filter hook output priority 0 ; }"])
            try nft(["add", "rule", "inet", "cut", "input", "ip", "saddr", h2, "drop"])
            try nft(["add", "rule", "inet", "cut", "output", "ip", "daddr", h2, "drop"])
            try a.type("echo during$((2+2))")
            try a.press("Enter")
            try a.waitForScreen(containing: "during4", timeout: 2)
            // The stream's keep-alive notices within 15 s (docs/PROTOCOL.md §10); b says so over the last screen.
            try b.waitForScreen(containing: "The link to e2e-a was lost; trying again", timeout: 30)
            #expect(try b.capture().joined().contains("before2"))
            try nft(["delete", "table", "inet", "cut"])
            try b.waitForScreen(containing: "during4", timeout: 30)
            try b.waitForScreen(containing: "Following the session on e2e-a")
            try b.type("q")
            try b.expectExit(0)
            try a.type("exit")
            try a.press("Enter")
            try a.expectExit(0)
        }
    }

    /// Two machines of their own (hosts 1 and 2), paired: each a listed device of the other's,
    /// so the second is asked for, not let in as the same device.
    static func pairedMachines(_ stage: Stage) throws -> (DeviceLabTests.Machine, DeviceLabTests.Machine) {
        let a = try DeviceLabTests.machine(stage, "e2e-a", on: 1)
        let b = try DeviceLabTests.machine(stage, "e2e-b", on: 2)
        try DeviceLabTests.pair(stage, a, b)
        return (a, b)
    }
}
