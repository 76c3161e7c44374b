import Foundation
import Testing

/// `baton devices` and `baton devices remove` on the command line, outside any lab: what they
/// refuse, with what they say, before anything is stored or sent (docs/PROTOCOL.md, section 17).
@Suite("baton devices remove on the command line", .serialized, .ownThread, .timeLimit(.minutes(2)))
struct DevicesCommandTests {
    typealias Home = CommandLineFileTests.Home

    static func run(_ arguments: [String], _ home: Home, check: Bool = true) async throws -> CommandResult {
        try await CommandLineFileTests.run(arguments, environment: home.environment, check: check)
    }

    /// `baton id --json` in a home of its own: a device to list.
    static func device(_ baton: String, name: String) async throws -> [String: Any] {
        let other = try Home()
        defer { other.remove() }
        let result = try await run([baton, "id", "--json", "--name", name], other)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    /// Writes `devices.json` in `home` with these devices as paired entries.
    static func list(_ devices: [[String: Any]], in home: Home) throws {
        let entries = devices.map { device -> [String: Any] in
            ["name": device["name"]!, "identity": device["identity"]!, "deviceID": device["deviceID"]!,
             "fingerprint": device["fingerprint"]!, "via": "paired", "paired": "2027-01-15T08:00:00Z"]
        }
        let folder = home.folder + "/config/baton"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONSerialization.data(withJSONObject: ["version": 1, "devices": entries])
        #expect(FileManager.default.createFile(atPath: folder + "/devices.json", contents: data, attributes: [.posixPermissions: 0o600]))
    }

    @Test("Removing this machine, an unknown name, or a name two machines share is refused, saying what to do; the key stays as it was")
    func refusals() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let bob = try await Self.device(baton, name: "bob@desk")
        let carol1 = try await Self.device(baton, name: "carol@vm")
        let carol2 = try await Self.device(baton, name: "carol@vm")
        try Self.list([bob, carol1, carol2], in: home)
        let own = try await Self.run([baton, "devices", "remove", "alice@laptop", "--name", "alice@laptop"], home, check: false)
        #expect(own.status == 1)
        #expect(own.errorOutput.contains("alice@laptop is this machine"), "\(own.errorOutput)")
        #expect(own.errorOutput.contains("cannot remove itself"), "\(own.errorOutput)")
        let unknown = try await Self.run([baton, "devices", "remove", "dave@nas"], home, check: false)
        #expect(unknown.status == 1)
        #expect(unknown.errorOutput.contains("No listed machine is called dave@nas"), "\(unknown.errorOutput)")
        let twice = try await Self.run([baton, "devices", "remove", "carol@vm"], home, check: false)
        #expect(twice.status == 1)
        #expect(twice.errorOutput.contains("carol@vm fits 2 machines"), "\(twice.errorOutput)")
        for carol in [carol1, carol2] {
            #expect(twice.errorOutput.contains(carol["fingerprint"] as! String), "\(twice.errorOutput)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.keyFile + ".old"))
        // The listing shows the three, paired; the load introduced them (stored, once).
        let listed = try await Self.run([baton, "devices"], home)
        #expect(listed.output.split(separator: "\n").count == 4)
        #expect(listed.output.contains("bob@desk") && listed.output.contains("paired"))
        let stored = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: home.folder + "/config/baton/devices.json"))) as? [String: Any]
        #expect((stored?["statements"] as? [String])?.count == 3)
    }

    @Test("--help teaches: what remove does, in which steps, and what the removed machine keeps")
    func help() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        // Words as printed, whatever the width the help was wrapped at.
        func words(_ arguments: [String]) async throws -> String {
            try await Self.run([baton] + arguments + ["--help"], home).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let help = try await words(["devices", "remove"])
        #expect(help.contains("a new random group key, sealed for each other listed machine"), "\(help)")
        #expect(help.contains("The removed machine keeps what it already saw"), "\(help)")
        let devices = try await words(["devices"])
        #expect(devices.contains("introduced by NAME"), "\(devices)")
        #expect(devices.contains("baton devices remove NAME"), "\(devices)")
        let key = try await words(["key"])
        #expect(key.contains("make a fresh key and send it to every listed machine"), "\(key)")
    }
}
