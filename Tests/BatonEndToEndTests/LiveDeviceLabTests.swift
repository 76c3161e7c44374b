import Foundation
import Testing

/// Live sessions between machines with identities of their own (docs/PROTOCOL.md, sections 10
/// and 19): a continuation stream is opened only between listed devices.
extension DeviceLabTests {
    @Test("A follower its source does not list is refused at the handshake: it says so, follows nothing, and the source goes on")
    func followerNotListed() throws {
        try Stage.run(hosts: 3) { stage in
            let a = try Self.machine(stage, "e2e-a", on: 1)
            let c = try Self.machine(stage, "e2e-c", on: 2)
            try Self.pair(stage, a, c)
            let counter = try Self.counter(stage, "a", as: a, count: 3)

            // c, still listed, follows a: the stream opens between the two devices.
            let listed = try Self.baton(stage, "c-listed", as: c, [
                "follow", "dev.baton.counter", "--from", "e2e-a", "--wait", "5", "--name", c.name,
            ])
            try listed.waitForScreen("c follows a at 3") { lines in
                EndToEndTests.screen(lines, showsCount: 3) && lines.contains { $0.contains("Following e2e-a — read-only") }
            }
            try listed.type("q")
            try listed.expectExit(0)

            // a removes c; a's running counter takes the removal and the new group key.
            let removal = try Self.run(stage, as: a, [stage.baton, "devices", "remove", "e2e-c"], check: false)
            #expect(removal.status == 0, "\(removal.output)\(removal.errorOutput)")
            // c is given the new key, as someone who copied it would be: it hears a again (and only once
            // a's running program seals with the new key, which it takes with the removal), but its
            // device is no longer on a's list.
            try FileManager.default.removeItem(atPath: c.groupKey)
            #expect(FileManager.default.createFile(
                atPath: c.groupKey, contents: try Data(contentsOf: URL(fileURLWithPath: a.groupKey)),
                attributes: [.posixPermissions: 0o600]))

            let refused = try Self.baton(stage, "c-refused", as: c, [
                "follow", "dev.baton.counter", "--from", "e2e-a", "--wait", "10", "--name", c.name,
            ])
            try refused.waitForScreen(containing: "Could not follow", timeout: 15)
            let screen = try refused.capture().joined(separator: "\n")
            #expect(screen.contains("not on its list"), "\(screen)")
            #expect(!screen.contains("Following e2e-a"), "\(screen)")

            // a goes on, followed by nobody.
            try counter.type("+")
            try counter.waitForScreen("a's counter at 4") { EndToEndTests.screen($0, showsCount: 4) }
            let onA = try counter.capture().joined(separator: "\n")
            #expect(!onA.contains("Following"), "\(onA)")
            #expect(!EndToEndTests.screen(try refused.capture(), showsCount: 4), "the refused follower shows nothing of a's count")
            try stage.quit(counter, refused)
        }
    }
}
