import Foundation
import Testing

/// What Baton says about membership, between real programs (issue 37, section 1): a removed
/// machine learns it and cannot pair again under its identity; `baton doctor` right after a key
/// change is not alarmed; a peer name that does not resolve is a warning, not a stop. Machines
/// are set up as in `DeviceLabTests`: identities of their own, paired with `baton pair`.
/// Skips, saying why, without root, `ip netns`, tmux or the built programs.
@Suite("Membership advice in the lab: removal, key change, unresolved peers (netlab + tmux)",
    .serialized, .ownThread, .timeLimit(.minutes(3)))
struct MembershipAdviceLabTests {
    typealias Machine = DeviceLabTests.Machine

    /// How many statements `machine`'s devices.json keeps.
    static func statementCount(_ machine: Machine) throws -> Int {
        guard let data = FileManager.default.contents(atPath: machine.folder + "/devices.json") else { return 0 }
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (object?["statements"] as? [Any])?.count ?? 0
    }

    @Test("After `baton devices remove B` on A: doctor on B says B was removed (not its own address as a stranger); pairing B again is refused on both sides")
    func removedMachine() throws {
        try Stage.run(hosts: 2) { stage in
            let a = try DeviceLabTests.machine(stage, "e2e-a", on: 1)
            let b = try DeviceLabTests.machine(stage, "e2e-b", on: 2)
            try DeviceLabTests.pair(stage, a, b)
            // B's listener takes A's removal from its DEVICES and stores it in B's device list.
            let onB = try DeviceLabTests.peer(stage, "b-listener", as: b, ["listen", "--json"])
            defer { onB.stop() }
            let before = try Self.statementCount(b)
            let removal = try DeviceLabTests.run(stage, as: a, [stage.baton, "devices", "remove", "e2e-b"], check: false)
            #expect(removal.status == 0, "\(removal.output)\(removal.errorOutput)")
            try Wait.until("B's listener to store A's removal of B", timeout: 10) { try Self.statementCount(b) > before }

            let doctor = try DeviceLabTests.run(stage, as: b, [stage.baton, "doctor", "--listen", "1"], check: false, timeout: 60)
            #expect(doctor.status == 1, "\(doctor.output)")
            #expect(doctor.output.contains("✗ identity and devices: this machine was removed from the group by e2e-a"), "\(doctor.output)")
            #expect(!doctor.output.contains("came from devices this machine does not list"), "\(doctor.output)")
            #expect(doctor.output.contains("a removed identity cannot come back"), "\(doctor.output)")

            // Pairing again: refused before any code, on both sides, with the remedy.
            let s = try DeviceLabTests.baton(stage, "again-s", as: a, ["pair", "--name", a.name, "--timeout", "30"])
            let j = try DeviceLabTests.baton(stage, "again-j", as: b, ["pair", "--join", "--name", b.name, "--timeout", "30"])
            try s.waitForScreen("the sharer's refusal", timeout: 20) { lines in
                let text = lines.joined()
                return text.contains("Not paired: e2e-b was removed from this group")
                    || text.contains("Not paired: the other machine was removed from the group")
            }
            // Whichever side refuses first: B knows of its removal too (its listener stored it).
            try j.waitForScreen("the joiner's refusal", timeout: 20) { lines in
                let text = lines.joined()
                return text.contains("Not paired: the other machine lists this one as removed")
                    || text.contains("Not paired: this machine was removed from the group")
            }
            try j.waitForScreen(containing: "move the identity aside here")
            try s.expectExit(1)
            try j.expectExit(1)
        }
    }

    @Test("Right after `baton key --new` on A, doctor on B hears A without an error: datagrams under the previous key are a change under way")
    func doctorDuringKeyChange() throws {
        try Stage.run(hosts: 2) { stage in
            let a = try DeviceLabTests.machine(stage, "e2e-a", on: 1)
            let b = try DeviceLabTests.machine(stage, "e2e-b", on: 2)
            try DeviceLabTests.pair(stage, a, b)
            let onA = try DeviceLabTests.peer(stage, "a-announce", as: a, [
                "announce", "--type", "dev.baton.counter", "--user-info", "{\"count\":0}", "--tick", "count", "--every", "0.2",
            ])
            defer { onA.stop() }
            let onB = try DeviceLabTests.peer(stage, "b-listener", as: b, ["listen", "--json"])
            defer { onB.stop() }
            try onB.waitForEvent("e2e-a's ticking count", timeout: 15) { $0.peerName == "e2e-a" }
            let change = try DeviceLabTests.run(stage, as: a, [stage.baton, "key", "--new"], check: false)
            #expect(change.status == 0, "\(change.output)\(change.errorOutput)")
            let doctor = try DeviceLabTests.run(stage, as: b, [stage.baton, "doctor", "--listen", "3"], check: false, timeout: 60)
            #expect(!doctor.output.contains("arrived under another group key"), "\(doctor.output)")
            #expect(doctor.output.contains("✓ listening: heard"), "\(doctor.output)")
            #expect(doctor.status == 0, "\(doctor.output)")
        }
    }

    @Test("A peers file naming a host that does not resolve: baton warns and continues the counter anyway; doctor shows one ✗ line")
    func unresolvedPeerName() throws {
        try Stage.run(hosts: 2) { stage in
            let a = try DeviceLabTests.machine(stage, "e2e-a", on: 1)
            let b = try DeviceLabTests.machine(stage, "e2e-b", on: 2)
            try DeviceLabTests.pair(stage, a, b)
            try "desk.office.invalid\n".write(toFile: b.folder + "/peers", atomically: true, encoding: .utf8)
            let counter = try DeviceLabTests.counter(stage, "a", as: a, count: 3)
            // Before: "cannot resolve peer", exit 1. Now a warning, and the counter comes over by multicast.
            try DeviceLabTests.continueCounter(stage, "b", as: b, from: (counter, a.name), count: 3)

            let doctor = try DeviceLabTests.run(stage, as: b, [stage.baton, "doctor", "--listen", "0.5"], check: false, timeout: 60)
            #expect(doctor.status == 1, "\(doctor.output)")
            let crosses = doctor.output.split(separator: "\n").filter { $0.hasPrefix("✗ ") }
            #expect(crosses == ["✗ unicast peers: desk.office.invalid (\(b.folder)/peers:1) does not resolve: skipped, and tried again every 30 s"],
                "\(doctor.output)")
        }
    }
}

