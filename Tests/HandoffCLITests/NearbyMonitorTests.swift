import Foundation
import Handoff
import Testing
@testable import HandoffCLI
@testable import HandoffWire

/// `baton monitor`'s lines for one activity, in text and JSON, with and without a size.
@Suite("Monitor lines")
struct NearbyMonitorTests {
    static let time = Date(timeIntervalSince1970: 1_700_000_000.25)  // 22:13:20.250 UTC
    static let sender = SenderID(bytes: Array(repeating: 0xAB, count: 16))!
    static let record = ActivityRecord(
        activityID: "1F0C", activityType: "dev.baton.editing", revision: 3,
        savedAt: Date(timeIntervalSince1970: 1_700_000_000), userInfo: ["fileName": "big.log"],
        title: "Editing big.log", peer: PeerInfo(name: "alice@laptop", host: "laptop", app: "baton", appVersion: "1.0.0"))

    static func text(_ what: String, size: Int?, record: ActivityRecord = record) -> String {
        NearbyMonitor.line(what, record: record, sender: sender, source: nil, stateSize: size, format: .text, at: time)
    }

    static func json(_ what: String, size: Int?) throws -> [String: Any] {
        let line = NearbyMonitor.line(
            what, record: record, sender: sender, source: "10.0.0.2:47788", stateSize: size, format: .json, at: time)
        #expect(!line.contains("\n"), "one object per line")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("Text: a record the datagram carried has no size; one fetched over the stream shows it after the revision")
    func text() {
        #expect(Self.text("appeared", size: nil)
            == #"22:13:20.250 + dev.baton.editing "Editing big.log" from alice@laptop rev 3 {"fileName":"big.log"}"#)
        #expect(Self.text("appeared", size: 1024 * 1024)
            == #"22:13:20.250 + dev.baton.editing "Editing big.log" from alice@laptop rev 3 (1 MB) {"fileName":"big.log"}"#)
        #expect(Self.text("changed", size: 12_900_000)
            == #"22:13:20.250 ~ dev.baton.editing "Editing big.log" from alice@laptop rev 3 (12 MB) {"fileName":"big.log"}"#)
        #expect(Self.text("gone", size: 1536)
            == #"22:13:20.250 - dev.baton.editing "Editing big.log" from alice@laptop rev 3 (1.5 KB)"#)
    }

    @Test("Text from peers stays inert in the line")
    func inert() {
        var hostile = Self.record
        hostile.title = "x\u{1b}[2J"
        hostile.peer.name = "eve\u{07}@lan"
        let line = Self.text("appeared", size: 2048, record: hostile)
        #expect(line.contains(#""x␛[2J" from eve␇@lan rev 3 (2.0 KB)"#))
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test("JSON: \"size\" holds the bytes of a large record and is absent for a small one")
    func json() throws {
        let large = try Self.json("appeared", size: 12_900_000)
        #expect(large["size"] as? Int == 12_900_000)
        #expect(large["event"] as? String == "appeared")
        #expect(large["type"] as? String == "dev.baton.editing")
        #expect(large["revision"] as? Int == 3)
        #expect(large["source"] as? String == "10.0.0.2:47788")
        #expect((large["userInfo"] as? [String: Any])?["fileName"] as? String == "big.log")

        let small = try Self.json("appeared", size: nil)
        #expect(small["size"] == nil)
        #expect(small["activityID"] as? String == "1F0C")

        let gone = try Self.json("gone", size: 4096)
        #expect(gone["size"] as? Int == 4096)
        #expect(gone["userInfo"] == nil)
    }
}

@Suite("Monitor network lines")
struct MonitorNetworkLineTests {
    @Test("A path that does not work is said in words, and in JSON with its reason")
    func networkLine() throws {
        let status = TransportStatus(paths: [
            .init(kind: .multicast, state: .down(reason: "a firewall refuses it"), detail: "239.255.77.88:47788 on eth0"),
            .init(kind: .unicast, state: .up, detail: "to 1 listed peer, 0 learnt peers"),
        ])
        let text = NearbyMonitor.networkLine(status, format: .text, at: Date(timeIntervalSince1970: 0))
        #expect(text.hasPrefix("# network: multicast unavailable (a firewall refuses it): unicast only (multicast "))
        let json = NearbyMonitor.networkLine(status, format: .json, at: Date(timeIntervalSince1970: 0))
        #expect(json.contains(#""event":"network""#))
        #expect(json.contains(#""reason":"a firewall refuses it""#))
        #expect(json.contains(#""state":"down""#) && json.contains(#""state":"up""#))
    }
}

@Suite("Monitor statistics lines")
struct MonitorStatisticsLineTests {
    @Test("JSON lists every reason a receiver counts, not wrongSource (protocol 2's, gone from the page); text only those counted")
    func statistics() throws {
        var stats = ReceiveStatistics()
        stats.accepted = 7
        stats.duplicate = 2
        stats.rejected = [.badSignature: 3]
        let json = NearbyMonitor.statisticsLine(stats, format: .json, at: Date(timeIntervalSince1970: 1_700_000_000))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "statistics")
        #expect(object["accepted"] as? Int == 7 && object["rejectedTotal"] as? Int == 3)
        let rejected = try #require(object["rejected"] as? [String: Any])
        #expect(rejected[RejectionReason.badSignature.rawValue] as? Int == 3)
        #expect(rejected[RejectionReason.wrongSource.rawValue] == nil, "\(rejected.keys.sorted())")
        #expect(Set(rejected.keys) == Set(RejectionReason.allCases.filter { $0 != .wrongSource }.map(\.rawValue)))
        let text = NearbyMonitor.statisticsLine(stats, format: .text, at: Date())
        #expect(text == "# accepted=7 own=0 duplicate=2 rejected=3 (\(RejectionReason.badSignature.rawValue)=3)")
    }
}
