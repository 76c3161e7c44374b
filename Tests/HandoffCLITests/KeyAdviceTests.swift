import BatonFiles
import Foundation
import Handoff
import HandoffTesting
import Testing
@testable import HandoffCLI
@testable import HandoffWire

/// What a person is told when the machines do not share a key: `baton monitor`'s line, and
/// the message of a continue that found nothing.
@MainActor
@Suite("Key advice")
struct KeyAdviceTests {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let otherKey = GroupKey(bytes: Array(100..<132))!
    static let registry = ActivityTypeRegistry(declaredTypes: ["dev.baton.counter"])
    static let notFound = HandoffError.notFound(type: nil, peer: nil, waited: .seconds(2), endpoint: "239.255.77.88:47788")

    static func foreign(_ sequence: UInt64, from source: String) -> ReceivedDatagram {
        let record = ActivityRecord(
            activityID: "0000000A-0000-4000-8000-000000000000", activityType: "dev.baton.counter", revision: 1,
            savedAt: Date(), userInfo: ["count": 5], peer: PeerInfo(name: "alice@a", host: "a", app: "baton", appVersion: "1"))
        // Another group's machine: another key, and a device this one never paired with.
        let device = DeviceIdentity(seed: Array(repeating: 9, count: 32))!
        let bytes = try! DatagramCodec(keys: GroupKeys(current: otherKey)).encode(
            .announce(record), identity: device, senderID: SenderID(tag: DeviceTag(device.publicIdentity.deviceID), instance: Array(repeating: 9, count: 8))!,
            sequence: sequence, sentAt: Date())
        return ReceivedDatagram(bytes: bytes, source: source)
    }

    @Test("Nothing found while datagrams under another key came in: which addresses, and what to do")
    func notFoundWithOtherKey() {
        let message = KeyAdvice.continueFailed(
            Self.notFound, otherKeySources: ["10.77.0.12", "10.77.0.13"], keySource: .file("/home/u/.config/baton/group.key"))
        #expect(message == "No continuable activity was heard on 239.255.77.88:47788 within 2 s. "
            + "Datagrams under another group key came from 10.77.0.12 and 10.77.0.13: a machine there holds a key this one does not; "
            + "pair the two machines (`baton pair` on one, `baton pair --join` on the other): "
            + "a machine hears only the machines it is paired with or introduced to, and pairing gives it the group's key too.")
    }

    @Test("Every piece of key advice sends a machine to pairing: the key alone lets no machine in")
    func adviceIsPairing() {
        let created = KeyAdvice.continueFailed(Self.notFound, otherKeySources: [], keySource: .created("/k"))
        for text in [KeyAdvice.share, KeyAdvice.newKey(path: "/k"), created, KeyInput.howToCopy] {
            #expect(text.contains("`baton pair"), "\(text)")
        }
        // Importing is offered only for a machine that is paired already, never as a way in.
        #expect(!KeyAdvice.share.contains("--import"))
        #expect(!KeyAdvice.newKey(path: "/k").contains("--import"))
        #expect(KeyInput.howToCopy.contains("paired already"))
    }

    @Test("`baton key --import` says the machine must still be paired, and how many devices it lists")
    func imported() {
        let alone = KeyAdvice.imported(path: "/home/u/.config/baton/group.key", listedOthers: 0)
        #expect(alone.hasPrefix("Imported. /home/u/.config/baton/group.key now holds the shared key."))
        #expect(alone.contains("hears no one until this machine is paired"))
        #expect(!alone.contains("will see peers"))
        let paired = KeyAdvice.imported(path: "/k", listedOthers: 2)
        #expect(paired.contains("hears the 2 other devices `baton devices` lists"))
        #expect(paired.contains("the key alone lets no other machine in"))
    }

    @Test("Under BATON_KEY, datagrams under another key point at BATON_KEY, not at pairing again")
    func environmentKey() {
        #expect(KeyAdvice.otherKeyRemedy(keySource: .environment) == .environmentKey)
        #expect(KeyAdvice.otherKeyRemedy(keySource: .file("/k")) == .pair)
        #expect(KeyAdvice.otherKeyRemedy(keySource: .created("/k")) == .pair)
        let message = KeyAdvice.continueFailed(Self.notFound, otherKeySources: ["10.77.0.12"], keySource: .environment)
        #expect(message.contains("BATON_KEY is set here and takes the place of the key file"))
        #expect(message.contains("unset BATON_KEY"))
        #expect(!message.contains("pair"))
    }

    @Test("Nothing found with a key this run made: the key is new and shared with no one; pair")
    func notFoundWithNewKey() {
        let message = KeyAdvice.continueFailed(Self.notFound, otherKeySources: [], keySource: .created("/home/u/.config/baton/group.key"))
        #expect(message.hasPrefix("No continuable activity was heard on 239.255.77.88:47788 within 2 s. This machine had no group key, "))
        #expect(message.contains("a new one was made (/home/u/.config/baton/group.key), and no other machine shares it yet"))
        #expect(message.contains("`baton pair --join` here"))
    }

    @Test("Nothing found with a key of long standing and nothing under another key: the plain message")
    func notFoundPlain() {
        #expect(KeyAdvice.continueFailed(Self.notFound, otherKeySources: [], keySource: .environment) == Self.notFound.description)
        // Other failures are what they are, whatever the key.
        let failed = HandoffError.transferFailed(peer: "alice@a", reason: "the connection was reset")
        #expect(KeyAdvice.continueFailed(failed, otherKeySources: ["10.0.0.1"], keySource: .created("/k")) == failed.description)
    }

    @Test("A hostile relay name in the addresses stays inert")
    func inert() {
        let line = KeyAdvice.otherKey(["relay:\u{1b}[2J"])
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 })
        #expect(line.contains("relay:␛[2J"))
    }

    /// A monitor over a center that hears `sources` send under another key, `repeats` times each.
    static func monitor(_ format: NearbyMonitor.Format, sources: [[String]], repeats: Int = 20) async -> [String] {
        let center = ActivityCenter(
            registry: registry, membership: .sharedDevice(of: key), transport: InMemoryNetwork().makeTransport(name: "bob"),
            configuration: .init(peer: PeerInfo(name: "bob@b", host: "b", app: "baton", appVersion: "1")), clock: ManualClock())
        var lines: [String] = []
        let monitor = NearbyMonitor(center: center, format: format) { lines.append($0) }
        monitor.start(statisticsInterval: .seconds(3600))
        var sequence: UInt64 = 0
        var expected = 0
        for round in sources {
            for source in round {
                for _ in 0..<repeats {
                    sequence += 1
                    center.receive(foreign(sequence, from: source + ":47788"))
                }
            }
            expected += 2  // the hint line, then the counters
            let seen = expected
            #expect(await waitUntil { lines.count >= seen }, "lines: \(lines)")
        }
        monitor.stop()
        await center.shutdown()
        return lines
    }

    @Test("Monitor: once with what to do, then only for an address not heard before; the counters follow")
    func monitorText() async {
        let lines = await Self.monitor(.text, sources: [["10.77.0.12"], ["10.77.0.12", "10.77.0.13"]])
        #expect(lines.count == 4, "lines: \(lines)")
        #expect(lines.first == "# another group key: datagrams from 10.77.0.12 do not open with this machine's key; " + KeyAdvice.share)
        #expect(lines.dropFirst().first?.contains("authenticationFailed=20") == true)
        #expect(lines.dropFirst(2).first == "# another group key: datagrams from 10.77.0.13 too")
        #expect(lines.last?.contains("authenticationFailed=60") == true)
    }

    @Test("Monitor --json: an \"otherKey\" event with the new and all addresses and the hint")
    func monitorJSON() async throws {
        let lines = await Self.monitor(.json, sources: [["10.77.0.12"], ["10.77.0.13"]], repeats: 1)
        let events = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let hints = events.filter { $0["event"] as? String == "otherKey" }
        #expect(hints.count == 2)
        #expect(hints.first?["sources"] as? [String] == ["10.77.0.12"])
        #expect(hints.last?["sources"] as? [String] == ["10.77.0.13"])
        #expect(hints.last?["allSources"] as? [String] == ["10.77.0.12", "10.77.0.13"])
        #expect(hints.first?["hint"] as? String == KeyAdvice.share)
        #expect(hints.first?["time"] is String)
    }
}
