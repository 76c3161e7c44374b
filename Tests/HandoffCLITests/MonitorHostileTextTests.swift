import Foundation
import Handoff
import HandoffTesting
import Testing
@testable import HandoffCLI
@testable import PropertyList
@testable import HandoffWire

/// `baton monitor` with hostile text in every field a peer controls: the text line shows it
/// visibly, the JSON line escapes it and reads back exactly, and neither holds a control byte.
@Suite("Monitor lines with hostile peer text")
struct MonitorHostileTextTests {
    static let time = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let sender = SenderID(bytes: Array(repeating: 0xAB, count: 16))!

    /// A record with `text` in every field a peer chooses.
    static func record(_ text: String) -> ActivityRecord {
        ActivityRecord(
            activityID: "id" + text, activityType: "dev.x" + text, revision: 3,
            savedAt: Date(timeIntervalSince1970: 1_700_000_000),
            userInfo: ["k" + text: .string("v" + text), "list": .array([.string(text)]), "n": 5],
            title: "t" + text, requiredUserInfoKeys: ["r" + text],
            peer: PeerInfo(name: "n" + text, host: "h" + text, app: "a" + text, appVersion: "1" + text))
    }

    static func line(_ what: String, _ text: String, format: NearbyMonitor.Format) -> String {
        NearbyMonitor.line(
            what, record: record(text), sender: sender, source: "10.0.0.2:47788", stateSize: nil, format: format, at: time)
    }

    /// Equal scalar for scalar (String's == would take canonically equivalent text as equal).
    static func same(_ a: Any?, _ b: String) -> Bool {
        guard let a = a as? String else { return false }
        return a.unicodeScalars.elementsEqual(b.unicodeScalars)
    }

    static let kinds = HostileText.kinds.map(\.name) + ["all"]
    static func text(_ kind: String) -> String {
        HostileText.kinds.first { $0.name == kind }?.text ?? HostileText.all
    }

    @Test("Text: the type, title, peer name and userInfo are shown visibly, with no control byte", arguments: kinds)
    func textLine(kind: String) {
        let text = Self.text(kind)
        for what in ["appeared", "changed", "gone"] {
            let line = Self.line(what, text, format: .text)
            #expect(HostileText.forbidden(in: line) == [], "\(what) \(kind): \(PeerText.visible(line))")
            #expect(line.contains(" " + PeerText.visible("dev.x" + text) + " \"" + PeerText.visible("t" + text) + "\" from "))
            #expect(line.contains(" from " + PeerText.visible("n" + text) + " rev 3"))
        }
    }

    @Test("Text: what the hostile kinds look like")
    func textForms() {
        #expect(Self.line("appeared", HostileText.osc52, format: .text)
            .contains(#"+ dev.x␛]52;c;ZXZpbA==␇ "t␛]52;c;ZXZpbA==␇" from n␛]52;c;ZXZpbA==␇ rev 3"#))
        #expect(Self.line("appeared", HostileText.bidi, format: .text).contains("from nabc<U+202E>fed<U+202C>"))
        #expect(Self.line("appeared", HostileText.csi8bit, format: .text).contains("dev.x<U+009B>31m"))
        let tags = Self.line("appeared", HostileText.tags, format: .text)
        #expect(tags.contains("from nok<U+E0001><U+E0041><U+E0042><U+E007F> rev 3"))
        #expect(tags.contains(#"\uDB40\uDC01"#), "userInfo is JSON there, escaped")
    }

    @Test("JSON: every field reads back exactly; the bytes carry no control, bidi or invisible scalar", arguments: kinds)
    func jsonLine(kind: String) throws {
        let text = Self.text(kind)
        let line = Self.line("appeared", text, format: .json)
        #expect(HostileText.forbidden(in: line) == [], "\(kind): \(PeerText.visible(line))")
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Self.same(object["type"], "dev.x" + text))
        #expect(Self.same(object["title"], "t" + text))
        #expect(Self.same(object["activityID"], "id" + text))
        let peer = try #require(object["peer"] as? [String: Any])
        #expect(Self.same(peer["name"], "n" + text))
        #expect(Self.same(peer["host"], "h" + text))
        #expect(Self.same(peer["app"], "a" + text))
        #expect(Self.same(peer["appVersion"], "1" + text))
        let info = try #require(object["userInfo"] as? [String: Any])
        let key = try #require(info.keys.first { $0.unicodeScalars.first == "k" })
        #expect(Self.same(key, "k" + text))
        #expect(Self.same(info[key], "v" + text))
        #expect(Self.same((info["list"] as? [Any])?.first, text))
        // And through Baton's own JSON reader, the whole userInfo as it was.
        let back = try PropertyListValue(json: Data(line.utf8))
        #expect(back.dictionaryValue?["userInfo"] == .dictionary(Self.record(text).userInfo))
    }

    @Test("A command's failure message carries no peer control, each of its lines made visible")
    func commandFailure() {
        let error = HandoffError.missingRequiredKeys(type: "dev.x" + HostileText.all, keys: ["r" + HostileText.all])
        let failure = CommandFailure("\(error)")
        #expect(HostileText.forbidden(in: failure.description) == [])
        #expect(failure.description.contains("'r␛]52;c;ZXZpbA==␇|␛[2J|<U+009B>31m|"))
        #expect(CommandFailure("two\nlines\u{1B}").description == "two\nlines␛", "its own line breaks stay")
    }
}

/// The monitor over a center that hears an impostor.
@MainActor
@Suite("Monitor: look-alike peer names")
struct MonitorLookAlikeTests {
    static let key = GroupKey(bytes: Array(0..<32))!
    /// Two devices the monitor lists: a look-alike name is told apart by the start of its device's tag.
    static let aliceDevice = DeviceIdentity(seed: Array(repeating: 0x11, count: 32))!
    static let eveDevice = DeviceIdentity(seed: Array(repeating: 0x22, count: 32))!
    static let alice = SenderID.random(device: aliceDevice.publicIdentity.deviceID)
    static let eve = SenderID.random(device: eveDevice.publicIdentity.deviceID)

    final class Lines {
        var all: [String] = []
    }

    static func announce(
        _ center: ActivityCenter, name: String, sender: SenderID, device: DeviceIdentity, id: String, revision: Int
    ) throws {
        let record = ActivityRecord(
            activityID: id, activityType: "dev.baton.counter", revision: revision, savedAt: Date(),
            userInfo: ["count": .integer(revision)],
            peer: PeerInfo(name: name, host: "laptop", app: "baton", appVersion: "1.0.0"))
        let bytes = try DatagramCodec(keys: GroupKeys(current: key)).encode(
            .announce(record), identity: device, senderID: sender, sequence: UInt64(revision), sentAt: Date())
        center.receive(ReceivedDatagram(bytes: bytes, source: "10.0.0.9:47788"))
    }

    @Test("A name that imitates another sender's, and then the imitated one, show the start of their sender IDs")
    func lookAlike() throws {
        let center = ActivityCenter(
            registry: ActivityTypeRegistry(declaredTypes: ["dev.baton.counter"], schemas: [:]),
            membership: Membership(
                identity: DeviceIdentity(seed: Array(repeating: 0x33, count: 32))!, keys: GroupKeys(current: Self.key),
                roster: DeviceRoster(
                    own: DeviceIdentity(seed: Array(repeating: 0x33, count: 32))!.publicIdentity, name: "monitor",
                    paired: [(Self.aliceDevice.publicIdentity, "alice"), (Self.eveDevice.publicIdentity, "eve")])),
            transport: InMemoryNetwork().makeTransport(),
            configuration: .init(peer: PeerInfo(name: "monitor", host: "m", app: "baton", appVersion: "1.0.0")))
        let lines = Lines()
        let monitor = NearbyMonitor(center: center, format: .text) { lines.all.append($0) }

        let (aliceMark, eveMark) = ("#" + Self.alice.description.prefix(4), "#" + Self.eve.description.prefix(4))
        try #require(aliceMark != eveMark, "two devices whose tags start alike")
        try Self.announce(
            center, name: "alice@laptop", sender: Self.alice, device: Self.aliceDevice, id: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11",
            revision: 1)
        monitor.refresh()
        #expect(lines.all.count == 1)
        #expect(lines.all.last?.contains("+ dev.baton.counter from alice@laptop rev 1") == true, "\(lines.all)")

        try Self.announce(
            center, name: "Al\u{200B}ice@laptop", sender: Self.eve, device: Self.eveDevice, id: "0A6C2F0E-8A5B-4B8E-9C1D-3E2F4A5B6C7D",
            revision: 1)
        monitor.refresh()
        #expect(lines.all.count == 2)
        #expect(lines.all.last?.contains("+ dev.baton.counter from Al<U+200B>ice@laptop \(eveMark) rev 1") == true, "\(lines.all)")

        try Self.announce(
            center, name: "alice@laptop", sender: Self.alice, device: Self.aliceDevice, id: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11",
            revision: 2)
        monitor.refresh()
        #expect(lines.all.count == 3)
        #expect(lines.all.last?.contains("~ dev.baton.counter from alice@laptop \(aliceMark) rev 2") == true, "\(lines.all)")
    }
}
