import BatonFiles
import Foundation
import Handoff
import HandoffCLI
import HandoffWire
import Testing

/// `identity.key`, `devices.json`, and what `baton id` and `baton devices` print
/// (docs/PROTOCOL.md, section 3, "Device identity", and section 15, "The device list").
@Suite("Device identity file and device list")
struct DeviceTests {
    /// A config folder of its own (XDG_CONFIG_HOME), removed afterwards.
    final class Folder {
        let config: URL
        var baton: URL { config.appendingPathComponent("baton") }
        var environment: [String: String] { ["XDG_CONFIG_HOME": config.path] }
        init() throws {
            config = FileManager.default.temporaryDirectory.appendingPathComponent("baton-devices-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(at: config) }
        func path(_ name: String) -> String { baton.appendingPathComponent(name).path }
        func write(_ name: String, _ text: String, mode: Int = 0o600) throws {
            try FileManager.default.createDirectory(at: baton, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data(text.utf8).write(to: baton.appendingPathComponent(name))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(name))
        }
        func mode(_ path: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! Int
        }
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: baton.appendingPathComponent(name)) }
    }

    static let seedText = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

    // MARK: identity.key

    @Test("First use makes identity.key (0600 in a 0700 folder, base64 and a newline); later uses read the same one")
    func identityMade() throws {
        let folder = try Folder()
        let first = try DeviceIdentity.load(environment: folder.environment)
        #expect(first.created)
        #expect(first.path == folder.path("identity.key"))
        #expect(try folder.mode(first.path) == 0o600)
        #expect(try folder.mode(folder.baton.path) == 0o700)
        #expect(String(decoding: try folder.bytes("identity.key"), as: UTF8.self) == first.identity.base64 + "\n")
        let again = try DeviceIdentity.load(environment: folder.environment)
        #expect(!again.created)
        #expect(again.identity.publicIdentity == first.identity.publicIdentity)
    }

    @Test("White space around the seed is ignored: the page's check seed gives the page's fingerprint")
    func identityRead() throws {
        let folder = try Folder()
        try folder.write("identity.key", "\n  \(Self.seedText) \n\n")
        let loaded = try DeviceIdentity.load(environment: folder.environment)
        #expect(!loaded.created)
        #expect(loaded.identity.publicIdentity.deviceID.fingerprint == "2614 dcb9 6a1b 161f 024a 2186 2434 2e1b")
    }

    @Test("An identity file others may read is refused with the chmod that fixes it, and left as it is")
    func identityExposed() throws {
        let folder = try Folder()
        try folder.write("identity.key", Self.seedText + "\n", mode: 0o644)
        let path = folder.path("identity.key")
        #expect(throws: DeviceIdentity.FileError(description:
            "The identity file \(path) is readable by others (mode 0644); run: chmod 600 '\(path)'")) {
            try DeviceIdentity.load(environment: folder.environment)
        }
        #expect(try folder.mode(path) == 0o644)
    }

    @Test("An identity file of another user is refused with the chown that fixes it", .enabled(if: geteuid() == 0, "needs root to chown"))
    func identityForeign() throws {
        let folder = try Folder()
        try folder.write("identity.key", Self.seedText + "\n")
        let path = folder.path("identity.key")
        #expect(chown(path, 4242, 4242) == 0)
        do {
            _ = try DeviceIdentity.load(environment: folder.environment)
            Issue.record("a file of uid 4242 was read")
        } catch {
            #expect(error.description.contains("belongs to another user (uid 4242)"))
            #expect(error.description.hasSuffix("run: chown root '\(path)'"))
        }
    }

    @Test("A corrupt identity file is an error that says what to do, and is never replaced", arguments: ["not base64!", "AAAA"])
    func identityCorrupt(text: String) throws {
        let folder = try Folder()
        try folder.write("identity.key", text)
        do {
            _ = try DeviceIdentity.load(environment: folder.environment)
            Issue.record("a corrupt identity was taken")
        } catch {
            #expect(error.description.contains("is not usable"))
            #expect(error.description.contains("mv '\(folder.path("identity.key"))'"))
        }
        #expect(String(decoding: try folder.bytes("identity.key"), as: UTF8.self) == text)
    }

    // MARK: devices.json

    static func list(_ folder: Folder) -> DeviceList { DeviceList.standard(environment: folder.environment) }

    @Test("A paired device is added once; pairing it again updates its name and time; the file is 0600")
    func addAndUpdate() throws {
        let folder = try Folder()
        let list = Self.list(folder)
        #expect(try list.entries().isEmpty)
        let bob = DeviceIdentity.random().publicIdentity
        let carol = DeviceIdentity.random().publicIdentity
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try list.recordPaired(name: "bob@desk", identity: bob, at: t0))
        #expect(try list.recordPaired(name: "carol@nas", identity: carol, at: t0))
        #expect(try !list.recordPaired(name: "bob@new-desk", identity: bob, at: t0 + 60))
        let entries = try list.entries()
        #expect(entries.map(\.name) == ["bob@new-desk", "carol@nas"])
        #expect(entries[0].paired == t0 + 60)
        #expect(entries[0].publicIdentity == bob)
        #expect(entries[0].fingerprint == bob.deviceID.fingerprint)
        #expect(entries[0].via == "paired")
        #expect(entries[0].lastHeard == nil)
        #expect(try folder.mode(list.path) == 0o600)
    }

    @Test("A corrupt device list is an error that says what to do; adding refuses too and leaves the file alone",
          arguments: ["{not json", "{\"version\": 1}", "{\"version\": 2, \"devices\": []}"])
    func corrupt(text: String) throws {
        let folder = try Folder()
        try folder.write("devices.json", text)
        let list = Self.list(folder)
        do {
            _ = try list.entries()
            Issue.record("a corrupt list was read")
        } catch {
            #expect(error.description.contains("cannot be used"))
            #expect(error.description.contains("Nothing was changed"))
        }
        #expect(throws: DeviceList.Failure.self) {
            try list.recordPaired(name: "x", identity: DeviceIdentity.random().publicIdentity, at: Date())
        }
        #expect(String(decoding: try folder.bytes("devices.json"), as: UTF8.self) == text)
    }

    @Test("An entry whose identity does not match its device id makes the list unusable, saying whose")
    func tampered() throws {
        let folder = try Folder()
        let list = Self.list(folder)
        _ = try list.recordPaired(name: "bob", identity: DeviceIdentity.random().publicIdentity, at: Date())
        let other = DeviceIdentity.random().publicIdentity.base64
        var text = String(decoding: try folder.bytes("devices.json"), as: UTF8.self)
        let current = try #require(try list.entries().first?.identity)
        text = text.replacingOccurrences(of: current, with: other)
        try folder.write("devices.json", text)
        #expect(throws: DeviceList.Failure.self) { try list.entries() }
        do { _ = try list.entries() } catch { #expect(error.description.contains("the entry of bob")) }
    }

    @Test("A device list others may read is refused with the chmod that fixes it")
    func listExposed() throws {
        let folder = try Folder()
        try folder.write("devices.json", "{\"version\": 1, \"devices\": []}", mode: 0o640)
        let path = folder.path("devices.json")
        #expect(throws: DeviceList.Failure(description:
            "The device list \(path) is readable by others (mode 0640); run: chmod 600 '\(path)'")) {
            try Self.list(folder).entries()
        }
    }

    @Test("Sixteen writers at once (the lock serialises them): no entry is lost")
    func lock() throws {
        let folder = try Folder()
        let list = Self.list(folder)
        let identities = (0..<16).map { _ in DeviceIdentity.random().publicIdentity }
        let environment = folder.environment
        DispatchQueue.concurrentPerform(iterations: identities.count) { index in
            _ = try? DeviceList.standard(environment: environment)
                .recordPaired(name: "d\(index)", identity: identities[index], at: Date())
        }
        let entries = try list.entries()
        #expect(Set(entries.compactMap(\.publicIdentity)) == Set(identities))
        #expect(entries.count == 16)
        #expect(FileManager.default.fileExists(atPath: list.path + ".lock"))
    }

    @Test("An activity type completes from the registry compiled in: each declared type, and each by its last label")
    func activityTypeCompletion() {
        let words = ActivityTypeCompletion.words
        #expect(words == ["dev.baton.counter", "dev.baton.editing", "dev.baton.shell", "counter", "editing", "shell"])
        // Every word is one --continue-activity takes.
        let registry = ActivityTypeRegistry(declaredTypes: Array(words.prefix(3)))
        for word in words { #expect((try? registry.continuableType(word, program: "baton")) != nil, "\(word)") }
    }

    @Test("devices remove <Tab>: the listed names, introduced ones too, not removed ones; nothing is written")
    func completion() throws {
        let folder = try Folder()
        let list = Self.list(folder)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        let bob = DeviceIdentity.random()
        let carol = DeviceIdentity.random().publicIdentity
        let dave = DeviceIdentity.random().publicIdentity
        _ = try list.recordPaired(name: "bob@desk", identity: bob.publicIdentity, at: t0)
        _ = try list.recordPaired(name: "carol@vm", identity: carol, at: t0)
        _ = try list.recordPaired(name: "eve\u{1b}[2J", identity: DeviceIdentity.random().publicIdentity, at: t0)
        // Before this machine has an identity: the paired names, and no identity file made.
        #expect(DeviceCompletion.names(environment: folder.environment) == ["bob@desk", "carol@vm"])
        #expect(!FileManager.default.fileExists(atPath: folder.path("identity.key")))
        let me = try DeviceIdentity.load(environment: folder.environment).identity
        _ = try list.add(statements: [
            Statement(.introduce(identity: dave, name: "dave@nas"), by: bob, at: t0).bytes,
            Statement(.remove(device: carol.deviceID.bytes), by: me, at: t0).bytes,
        ])
        #expect(DeviceCompletion.names(environment: folder.environment) == ["bob@desk", "dave@nas"])
        #expect(DeviceCompletion.names(prefix: "d", environment: folder.environment) == ["dave@nas"])
        try folder.write("devices.json", "{not json")
        #expect(DeviceCompletion.names(environment: folder.environment).isEmpty)
    }

    // MARK: What the commands print

    @Test("baton devices: columns NAME, FINGERPRINT, HOW, SINCE (LAST HEARD only when known); names made visible; empty says how to pair")
    func listText() throws {
        let bob = DeviceIdentity(seed: (0..<32).map { UInt8($0) })!.publicIdentity
        let entry = DeviceEntry(name: "bob\u{1b}[31m", identity: bob, paired: Date(timeIntervalSince1970: 1_800_000_000))
        let text = DeviceText.list([entry], utc: true)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("NAME"))
        #expect(lines[0].contains("FINGERPRINT") && lines[0].contains("HOW"))
        // No time was ever heard: no column of "-".
        #expect(lines[0].hasSuffix("SINCE") && !lines[0].contains("LAST HEARD"))
        #expect(lines[1].hasSuffix("2614 dcb9 6a1b 161f 024a 2186 2434 2e1b  paired  2027-01-15 08:00"))
        // A time kept in the file shows, with "-" for the rows without one.
        var heard = entry
        heard.lastHeard = Date(timeIntervalSince1970: 1_800_000_600)
        let carol = DeviceIdentity(seed: (1..<33).map { UInt8($0) })!.publicIdentity
        let other = DeviceEntry(name: "carol", identity: carol, paired: Date(timeIntervalSince1970: 1_800_000_000))
        let both = DeviceText.list([heard, other], utc: true).split(separator: "\n")
        #expect(both[0].hasSuffix("SINCE             LAST HEARD"))
        #expect(both[1].hasSuffix("paired  2027-01-15 08:00  2027-01-15 08:10"))
        #expect(both[2].hasSuffix("paired  2027-01-15 08:00  -"))
        #expect(!text.contains("\u{1b}"))
        #expect(DeviceText.list([DeviceText.Row]()) == DeviceText.noDevices)
        #expect(DeviceText.noDevices.contains("baton pair --join"))
        #expect(DeviceText.listJSON([DeviceText.Row]()) == "[]")
        let json = try JSONSerialization.jsonObject(with: Data(DeviceText.listJSON([entry]).utf8)) as? [[String: Any]]
        #expect(json?.first?["fingerprint"] as? String == "2614 dcb9 6a1b 161f 024a 2186 2434 2e1b")
        #expect(json?.first?["paired"] as? String == "2027-01-15T08:00:00Z")
        #expect(json?.first?["deviceID"] as? String == "2614dcb96a1b161f024a218624342e1b")
    }

    @Test("baton id: the name, the fingerprint and the file, and what to compare it with; --json has the same")
    func idText() throws {
        let me = DeviceIdentity(seed: (0..<32).map { UInt8($0) })!.publicIdentity
        let text = DeviceText.identity(name: "alice@laptop", identity: me, path: "/x/identity.key", created: false)
        #expect(text.hasPrefix("This machine: alice@laptop\nFingerprint:  2614 dcb9 6a1b 161f 024a 2186 2434 2e1b\nIdentity:     /x/identity.key\n"))
        #expect(text.contains("`baton devices`"))
        let made = DeviceText.identity(name: "a", identity: me, path: "/x/identity.key", created: true)
        #expect(made.hasPrefix("This machine had no identity yet: one was made in /x/identity.key."))
        let json = try JSONSerialization.jsonObject(
            with: Data(DeviceText.identityJSON(name: "a", identity: me, path: "/x/identity.key", created: true).utf8)) as? [String: Any]
        #expect(json?["fingerprint"] as? String == "2614 dcb9 6a1b 161f 024a 2186 2434 2e1b")
        #expect(json?["created"] as? Bool == true)
        #expect(json?["identity"] as? String == me.base64)
    }
}
