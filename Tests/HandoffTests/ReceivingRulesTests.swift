import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import PropertyList
@testable import HandoffWire

@MainActor
@Suite("Receiving rules")
struct ReceivingRulesTests {
    let now = Date()

    func receiver() -> ActivityCenter {
        ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: InMemoryNetwork().makeTransport(),
            configuration: .init(peer: Fixtures.peer))
    }

    func announce(sequence: UInt64 = 1, sentAt: Date? = nil) -> [UInt8] {
        Fixtures.seal(.announce(Fixtures.counterRecord(count: 5)), sequence: sequence, sentAt: sentAt ?? now)
    }

    /// Seals arbitrary plaintext under a valid header, to reach the rules behind authentication.
    func sealRaw(_ plaintext: [UInt8], kind: DatagramKind = .announce, sequence: UInt64 = 1) -> [UInt8] {
        try! Fixtures.codec().seal(
            kind: kind, payload: plaintext, identity: Fixtures.device, senderID: Fixtures.sender, sequence: sequence)
    }

    func payload(without key: String? = nil, replacing: (String, PropertyListValue)? = nil) -> [UInt8] {
        var dict = HandoffMessage.announce(Fixtures.counterRecord(count: 5)).payload(sentAt: now)
        if let key { dict[key] = nil }
        if let (k, v) = replacing { dict[k] = v }
        return BinaryPropertyListWriter().write(.dictionary(dict))
    }

    /// Feeds one datagram to a fresh receiver and returns the only counter that moved.
    func verdict(_ bytes: [UInt8]) -> String {
        let center = receiver()
        center.receive(ReceivedDatagram(bytes: bytes), now: now)
        let s = center.statistics
        if s.accepted == 1, s.totalRejected == 0 { return "accepted" }
        if s.own == 1 { return "own" }
        guard s.totalRejected == 1, let reason = s.rejected.first(where: { $0.value == 1 })?.key else {
            return "unclear: \(s)"
        }
        return reason.rawValue
    }

    @Test("A valid datagram is accepted and its activity is nearby")
    func valid() {
        let center = receiver()
        center.receive(ReceivedDatagram(bytes: announce()), now: now)
        #expect(center.statistics.accepted == 1)
        #expect(center.nearby.first?.record.userInfo["count"] == 5)
    }

    @Test("Each malformed envelope is dropped for its own reason")
    func envelopeRules() {
        let good = announce()
        #expect(verdict(Array(good.prefix(113))) == "tooShort")
        #expect(verdict([]) == "tooShort")
        var magic = good
        magic[0] = UInt8(ascii: "X")
        #expect(verdict(magic) == "badMagic")
        var older = good
        older[3] = UInt8(ascii: "1")
        #expect(verdict(older) == "oldProtocol", "BTN1: a version 1 or 2 peer")
        var kind = good
        kind[4] = 9
        #expect(verdict(kind) == "unknownKind")
        var kindZero = good
        kindZero[4] = 0
        #expect(verdict(kindZero) == "unknownKind")
        let huge = DatagramHeader(kind: .announce, keyID: Fixtures.key.keyID, senderID: Fixtures.sender, sequence: 1).bytes
            + [UInt8](repeating: 0, count: 64 + 60_001 + 16)
        #expect(verdict(huge) == "tooLarge")
    }

    @Test("Wrong key, a flipped bit and a cut tag fail authentication")
    func authentication() {
        #expect(verdict(Fixtures.seal(.query(types: nil), key: Fixtures.otherKey, sequence: 1, sentAt: now)) == "authenticationFailed")
        let good = announce()
        // Flags, key id, instance, sequence, the sealed signature and payload, the tag; the
        // device tag (bytes 10–17) names a device this peer does not list once a bit flips.
        for index in [5, 6, 9, 18, 25, 26, 33, 34, 97, good.count / 2, good.count - 1] {
            var flipped = good
            flipped[index] ^= 0x01
            #expect(verdict(flipped) == "authenticationFailed", "bit flipped at \(index)")
        }
        for index in [10, 17] {
            var flipped = good
            flipped[index] ^= 0x01
            #expect(verdict(flipped) == "unknownDevice", "bit flipped at \(index)")
        }
        #expect(verdict(Array(good.dropLast(1))) == "authenticationFailed")
    }

    @Test("A running center that hears only a device it does not list shows it counted (unknownDevice), with nothing else to take in")
    func unlistedAloneIsCounted() async {
        let network = InMemoryNetwork()
        let center = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: network.makeTransport(),
            configuration: .init(peer: Fixtures.peer))
        center.start()
        defer { Task { await center.shutdown() } }
        let stranger = DeviceIdentity(seed: Array(repeating: 0x42, count: 32))!
        let sender = SenderID.random(device: stranger.publicIdentity.deviceID)
        let wire = network.makeTransport(name: "stranger")
        for sequence in UInt64(1)...3 {
            wire.send(Fixtures.seal(
                .announce(Fixtures.counterRecord(count: 5)), sender: sender, sequence: sequence, sentAt: Date(), identity: stranger))
        }
        #expect(await waitUntil(timeout: .seconds(60)) { center.statistics[.unknownDevice] == 3 }, "\(center.statistics)")
        #expect(center.statistics.accepted == 0 && center.nearby.isEmpty)
    }

    @Test("The group key alone is not enough: an unlisted device is unknownDevice, a listed tag signed by another identity badSignature")
    func identity() {
        let stranger = DeviceIdentity(seed: Array(repeating: 0x42, count: 32))!
        let strangerSender = SenderID.random(device: stranger.publicIdentity.deviceID)
        let unlisted = Fixtures.seal(
            .announce(Fixtures.counterRecord(count: 5)), sender: strangerSender, sequence: 1, sentAt: now, identity: stranger)
        #expect(verdict(unlisted) == "unknownDevice")
        // The shared device's tag, but the stranger's signature: the tag opens, the signature fails.
        let forged = Fixtures.seal(.announce(Fixtures.counterRecord(count: 5)), sequence: 1, sentAt: now, identity: stranger)
        #expect(verdict(forged) == "badSignature")
        let center = receiver()
        center.receive(ReceivedDatagram(bytes: forged), now: now)
        #expect(center.nearby.isEmpty, "nothing shown")
    }

    @Test("Plaintext that is not a plist dictionary with the right keys is dropped")
    func payloadRules() {
        #expect(verdict(sealRaw(Array("not a plist at all".utf8))) == "malformedPayload")
        #expect(verdict(sealRaw(BinaryPropertyListWriter().write(["an", "array"]))) == "notADictionary")
        #expect(verdict(sealRaw(payload(without: "type"))) == "missingKey")
        #expect(verdict(sealRaw(payload(without: "sentAt"))) == "missingKey")
        #expect(verdict(sealRaw(payload(without: "peer"))) == "missingKey")
        #expect(verdict(sealRaw(payload(replacing: ("revision", "three")))) == "wrongType")
        #expect(verdict(sealRaw(payload(replacing: ("userInfo", .array([]))))) == "wrongType")
        #expect(verdict(sealRaw(payload(replacing: ("keywords", .array([1, 2]))))) == "wrongType")
        #expect(verdict(sealRaw(payload(replacing: ("peer", .dictionary(["name": "x"]))))) == "missingKey")
        #expect(verdict(sealRaw(payload(replacing: ("unknownKey", "ignored")))) == "accepted")
    }

    @Test("An activity id that is no UUID, a type that is no reverse-DNS, a revision below 1 or a non-http URL is invalidValue")
    func valueRules() {
        let invalid: [(String, PropertyListValue)] = [
            ("activityID", "1F0C"), ("activityID", ""), ("activityID", "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A1G"),
            ("activityID", "6F1C3B1E_3E0B-4C7A-9E43-2B7D8B1F0A11"), ("activityID", "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11\u{1B}"),
            ("type", "counter"), ("type", "dev..counter"), ("type", "dev.baton.\u{1B}]52;c;SGk=\u{07}"),
            ("type", .string("dev." + String(repeating: "a", count: 252))),
            ("revision", 0), ("revision", -1), ("revision", .integer(.min)),
            ("webpageURL", "ftp://example.com/"), ("webpageURL", "javascript:alert(1)"), ("webpageURL", "/relative"),
            ("webpageURL", "https://"),
        ]
        for (key, value) in invalid {
            #expect(verdict(sealRaw(payload(replacing: (key, value)))) == "invalidValue", "\(key) = \(value)")
        }
        let valid: [(String, PropertyListValue)] = [
            ("activityID", "6f1c3b1e-3e0b-4c7a-9e43-2b7d8b1f0a11"), ("type", "a.b"), ("type", "dev.baton-x.counter_2"),
            ("revision", .integer(.max)), ("webpageURL", "HTTPS://example.com/a?b#c"), ("webpageURL", "http://10.0.0.1:8080"),
        ]
        for (key, value) in valid {
            #expect(verdict(sealRaw(payload(replacing: (key, value)))) == "accepted", "\(key) = \(value)")
        }
        for message in [HandoffMessage.withdraw(activityID: "A"), .continued(activityID: "A", peer: Fixtures.peer)] {
            let plaintext = DatagramCodec.plaintext(message, sentAt: now)
            #expect(verdict(sealRaw(plaintext, kind: message.kind)) == "invalidValue", "\(message.kind)")
        }
    }

    @Test("A sequence 64 below the highest accepted is a replay, 63 below is taken once, the accepted datagram again a duplicate; sentAt more than 60 s off is skew")
    func statefulRules() {
        let center = receiver()
        let first = announce(sequence: 70)
        center.receive(ReceivedDatagram(bytes: first), now: now)
        center.receive(ReceivedDatagram(bytes: first), now: now)
        center.receive(ReceivedDatagram(bytes: announce(sequence: 6)), now: now)
        let late = announce(sequence: 7)
        center.receive(ReceivedDatagram(bytes: late), now: now)
        center.receive(ReceivedDatagram(bytes: late), now: now)
        center.receive(ReceivedDatagram(bytes: announce(sequence: 71)), now: now)
        #expect(center.statistics.accepted == 3)
        #expect(center.statistics.duplicate == 2, "sequences 70 and 7, each again")
        #expect(center.statistics[.replay] == 1, "sequence 6, 64 below the highest")

        #expect(verdict(announce(sentAt: now.addingTimeInterval(-120))) == "clockSkew")
        #expect(verdict(announce(sentAt: now.addingTimeInterval(120))) == "clockSkew")
        #expect(verdict(announce(sentAt: now.addingTimeInterval(59))) == "accepted")
    }

    @Test("A peer ignores its own datagrams")
    func ownDatagrams() {
        var config = ActivityCenter.Configuration(peer: Fixtures.peer, senderID: Fixtures.sender)
        config.repeatInterval = .seconds(60)
        let center = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: InMemoryNetwork().makeTransport(),
            configuration: config)
        center.receive(ReceivedDatagram(bytes: announce()), now: now)
        #expect(center.statistics.own == 1)
        #expect(center.statistics.accepted == 0)
        #expect(center.nearby.isEmpty)
    }

    // MARK: Late datagrams (PROTOCOL.md section 7, "Late datagrams")

    /// Feeds `datagrams` to a fresh receiver in the given order.
    func received(_ datagrams: [[UInt8]]) -> ActivityCenter {
        let center = receiver()
        for bytes in datagrams { center.receive(ReceivedDatagram(bytes: bytes), now: now) }
        return center
    }

    func sealed(_ message: HandoffMessage, _ sequence: UInt64, from sender: SenderID = Fixtures.sender) -> [UInt8] {
        Fixtures.seal(message, sender: sender, sequence: sequence, sentAt: now)
    }

    @Test("A late ANNOUNCE of a lower revision is accepted and changes nothing: the newer revision stays")
    func lateOlderRevision() {
        let id = Fixtures.counterRecord(count: 0).activityID
        let center = received([
            sealed(.announce(Fixtures.counterRecord(count: 2, revision: 2, id: id)), 3),
            sealed(.announce(Fixtures.counterRecord(count: 1, revision: 1, id: id)), 2),
        ])
        #expect(center.statistics.accepted == 2)
        #expect(center.statistics.totalRejected == 0)
        #expect(center.directory[id]?.record.revision == 2)
        #expect(center.directory[id]?.record.userInfo["count"] == 2)
    }

    @Test("An ANNOUNCE overtaken by the WITHDRAW after it does not bring the activity back")
    func lateAnnounceAfterWithdraw() {
        let record = Fixtures.counterRecord(count: 1)
        let center = received([
            sealed(.announce(record), 1),
            sealed(.withdraw(activityID: record.activityID), 3),
            sealed(.announce(record), 2),
        ])
        #expect(center.statistics.accepted == 3)
        #expect(center.directory[record.activityID] == nil, "\(center.nearby.map(\.record.revision))")
        // Heard first, with nothing before it: the same.
        let fresh = received([
            sealed(.withdraw(activityID: record.activityID), 2),
            sealed(.announce(record), 1),
        ])
        #expect(fresh.statistics.accepted == 2)
        #expect(fresh.nearby.isEmpty)
    }

    @Test("A WITHDRAW overtaken by a later ANNOUNCE (the activity became current again) does not remove it")
    func lateWithdrawAfterAnnounce() {
        let id = Fixtures.counterRecord(count: 0).activityID
        let center = received([
            sealed(.announce(Fixtures.counterRecord(count: 1, revision: 1, id: id)), 1),
            sealed(.announce(Fixtures.counterRecord(count: 2, revision: 2, id: id)), 3),
            sealed(.withdraw(activityID: id), 2),
        ])
        #expect(center.statistics.accepted == 3)
        #expect(center.directory[id]?.record.revision == 2)
    }

    @Test("A withdrawn activity owns nothing: its sender may announce it again later, and so may another sender")
    func withdrawnOwnsNothing() {
        let record = Fixtures.counterRecord(count: 1)
        let again = received([
            sealed(.announce(record), 1),
            sealed(.withdraw(activityID: record.activityID), 2),
            sealed(.announce(record), 3),
        ])
        #expect(again.directory[record.activityID]?.record.revision == 1)
        let other = Fixtures.sender(0x42)
        let taken = received([
            sealed(.announce(record), 1),
            sealed(.withdraw(activityID: record.activityID), 2),
            sealed(.announce(Fixtures.counterRecord(count: 9, revision: 1)), 1, from: other),
        ])
        #expect(taken.statistics[.notOwner] == 0)
        #expect(taken.directory[record.activityID]?.senderID == other)
        #expect(taken.directory[record.activityID]?.record.userInfo["count"] == 9)
    }

    @Test("The rejection counters add up over a mixed stream")
    func countersAddUp() {
        let center = receiver()
        let good = announce(sequence: 100)
        var streams: [[UInt8]] = []
        streams.append(contentsOf: Array(repeating: Array(good.prefix(10)), count: 5))
        streams.append(contentsOf: Array(repeating: Fixtures.seal(.query(types: nil), key: Fixtures.otherKey, sequence: 1), count: 4))
        streams.append(good)
        streams.append(contentsOf: Array(repeating: good, count: 3))
        for bytes in streams { center.receive(ReceivedDatagram(bytes: bytes), now: now) }
        #expect(center.statistics[.tooShort] == 5)
        #expect(center.statistics[.authenticationFailed] == 4)
        #expect(center.statistics.duplicate == 3)
        #expect(center.statistics.accepted == 1)
        #expect(center.statistics.totalRejected + center.statistics.accepted + center.statistics.duplicate == streams.count)
    }
}

/// The fuzz loops of the receiving rules, through the gate that applies them off the main actor:
/// thousands of seals and signature checks, which would hold the main actor (and the tests that
/// need it) for seconds in a debug build.
@Suite("Receiving rules, fuzzed")
struct ReceivingRulesFuzzTests {
    let now = Date()

    func announce() -> [UInt8] {
        Fixtures.seal(.announce(Fixtures.counterRecord(count: 5)), sequence: 1, sentAt: now)
    }

    func payload() -> [UInt8] {
        BinaryPropertyListWriter().write(.dictionary(HandoffMessage.announce(Fixtures.counterRecord(count: 5)).payload(sentAt: now)))
    }

    func sealRaw(_ plaintext: [UInt8], sequence: UInt64) -> [UInt8] {
        try! Fixtures.codec().seal(
            kind: .announce, payload: plaintext, identity: Fixtures.device, senderID: Fixtures.sender, sequence: sequence)
    }

    @Test("Random bytes and mutated valid datagrams never crash and are never accepted")
    func fuzzedDatagrams() {
        var random = SplitMix64(seed: 42)
        let good = announce()
        for _ in 0..<3000 {
            let length = Int(random.next() % 400)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(throws: RejectionReason.self) { try Fixtures.decode(bytes, now: now) }
        }
        for _ in 0..<3000 {
            var bytes = good
            for _ in 0...(random.next() % 4) {
                bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            }
            if bytes == good { continue }  // two flips of one bit cancelled out
            #expect(throws: RejectionReason.self) { try Fixtures.decode(bytes, now: now) }
        }
    }

    @Test("Mutated plaintexts, sealed with the right key, are read or rejected, never crash")
    func fuzzedPlaintexts() async {
        var random = SplitMix64(seed: 7)
        let plain = payload()
        let gate = Fixtures.gate()
        var s = ReceiveStatistics()
        for i in 0..<3000 {
            var bytes = plain
            switch i % 3 {
            case 0:
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            case 1:
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            default:
                let at = bytes.count - 1 - Int(random.next() % 40)
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
            _ = gate.offer(ReceivedDatagram(bytes: sealRaw(bytes, sequence: UInt64(i + 1))), now: now)
            if i % 100 == 99 { s.add(gate.take(now: Date()).statistics) }
            if i % 10 == 0 { await Task.yield() }  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
        }
        s.add(gate.take(now: Date()).statistics)
        #expect(s.accepted + s.totalRejected == 3000)
        #expect(s[.malformedPayload] > 0)
    }
}
