import Foundation
import HandoffCLI
import Testing

/// `baton config`: each setting's value as the programs use it, and where it came from.
@Suite("baton config: effective settings and their origins")
struct EffectiveSettingsTests {
    /// A config folder of its own (XDG_CONFIG_HOME), removed afterwards.
    final class Folder {
        let config: URL
        var baton: URL { config.appendingPathComponent("baton") }
        init() throws {
            config = FileManager.default.temporaryDirectory.appendingPathComponent("baton-config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: config.appendingPathComponent("baton"), withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: config) }
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: baton.appendingPathComponent(name))
        }
    }

    func settings(_ arguments: [String], _ environment: [String: String], folder: Folder) throws -> [String: [EffectiveSetting]] {
        var env = environment
        env["XDG_CONFIG_HOME"] = folder.config.path
        let list = try NetworkOptions.parse(arguments).effectiveSettings(environment: env) { _ in "v0" }
        return Dictionary(grouping: list, by: \.name)
    }

    @Test("Nothing set: every setting is Baton's default, and a key not made yet is named, not made")
    func defaults() throws {
        let folder = try Folder()
        let found = try settings([], [:], folder: folder)
        #expect(found.keys.sorted() == [
            "devices", "group", "identity", "interface", "key", "log-file", "max-datagram", "name", "peer", "port",
            "registry", "relay", "stream-port", "ttl",
        ])
        #expect(found.values.joined().allSatisfy { $0.origin == .default })
        #expect(found["port"]?.first?.value == "47788")
        #expect(found["interface"]?.first?.value == "v0 (the route to the group)")
        #expect(found["key"]?.first?.value.hasSuffix("group.key (made on first use)") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.baton.appendingPathComponent("group.key").path))
    }

    @Test("The identity and the device list: each named as the file it is, or would be, and made by neither")
    func identityAndDevices() throws {
        let folder = try Folder()
        let identityPath = folder.baton.appendingPathComponent("identity.key").path
        let devicesPath = folder.baton.appendingPathComponent("devices.json").path
        var found = try settings([], [:], folder: folder)
        #expect(found["identity"] == [.init("identity", "\(identityPath) (made on first use)", .default)])
        #expect(found["devices"] == [.init("devices", "\(devicesPath) (made at the first pairing)", .default)])
        #expect(!FileManager.default.fileExists(atPath: identityPath))
        try folder.write("identity.key", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n")
        try folder.write("devices.json", "{}")
        found = try settings([], [:], folder: folder)
        #expect(found["identity"] == [.init("identity", identityPath, .file(identityPath))])
        #expect(found["devices"] == [.init("devices", devicesPath, .file(devicesPath))])
    }

    @Test("A flag beats its variable, the variable beats the file, and each value says which one it is")
    func origins() throws {
        let folder = try Folder()
        try folder.write("peers", "# the NAS\n10.77.0.20\n")
        try folder.write("relay", "mqtt://broker.test\n")
        let found = try settings(
            ["--port", "47800", "--peer", "10.77.0.9:5000", "--name", "desk"],
            ["BATON_PORT": "47900", "BATON_TTL": "4", "BATON_PEERS": "10.77.0.30", "BATON_KEY": "secret",
             "BATON_STREAM_PORT": "47795", "BATON_LOG": "/tmp/baton.log"],
            folder: folder)
        #expect(found["port"] == [.init("port", "47800", .flag("--port"))])
        #expect(found["ttl"] == [.init("ttl", "4", .environment("BATON_TTL"))])
        let peersFile = folder.baton.appendingPathComponent("peers").path
        #expect(found["peer"] == [
            .init("peer", "10.77.0.9:5000", .flag("--peer")),
            .init("peer", "10.77.0.30", .environment("BATON_PEERS")),
            .init("peer", "10.77.0.20", .file("\(peersFile):2")),
        ])
        #expect(found["relay"] == [.init("relay", "mqtt://broker.test:1883", .file(folder.baton.appendingPathComponent("relay").path))])
        #expect(found["key"] == [.init("key", "(the variable's value)", .environment("BATON_KEY"))])
        #expect(found["name"] == [.init("name", "desk", .flag("--name"))])
        #expect(found["stream-port"] == [.init("stream-port", "47795", .environment("BATON_STREAM_PORT"))])
        #expect(found["log-file"] == [.init("log-file", "/tmp/baton.log", .environment("BATON_LOG"))])
        // The key's value is never shown.
        #expect(!EffectiveSetting.text(Array(found.values.joined())).contains("secret"))
    }

    @Test("A bad value fails as the program would, naming where it came from")
    func badValue() throws {
        let folder = try Folder()
        let error = #expect(throws: CommandFailure.self) { try settings([], ["BATON_PORT": "http"], folder: folder) }
        #expect(error?.description.contains("BATON_PORT") == true)
    }

    @Test("Text lines up name, value and origin; --json is one array with origin and source")
    func formats() throws {
        let list: [EffectiveSetting] = [.init("port", "47800", .flag("--port")), .init("ttl", "1", .default)]
        #expect(EffectiveSetting.text(list) == "port  47800  (flag --port)\nttl   1      (default)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(EffectiveSetting.json(list).utf8)) as? [[String: String]])
        #expect(json == [
            ["name": "port", "value": "47800", "origin": "flag", "source": "--port"],
            ["name": "ttl", "value": "1", "origin": "default"],
        ])
    }
}
