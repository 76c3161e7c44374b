import Foundation
import Testing
@testable import Handoff
@testable import HandoffWire

/// What a peer that holds the group key can do to others, and where it stops
/// (docs/PROTOCOL.md section 7, "What a listed device can do, and what a key alone can do").
@Suite("Hostile insiders: forged senders, hijacked activities, future dates, QUERY floods")
struct InsiderTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let victim = Fixtures.sender(0x11)
    static let forger = Fixtures.sender(0x66)
    static let victimAddress = "192.0.2.7:47788"
    static let forgerAddress = "192.0.2.66:47788"
    static let id = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"

    static func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    static func gate() -> ReceiveGate {
        Fixtures.gate(own: Fixtures.sender(1), limits: .init())
    }

    static func datagram(
        _ message: HandoffMessage, sequence: UInt64, from sender: SenderID = victim, address: String = victimAddress,
        at seconds: Double
    ) -> ReceivedDatagram {
        let bytes = Fixtures.seal(message, sender: sender, sequence: sequence, sentAt: at(seconds))
        return ReceivedDatagram(bytes: bytes, source: address)
    }

    /// Offers one datagram and takes the batch at once: what was accepted and what was counted.
    static func offer(_ gate: ReceiveGate, _ datagram: ReceivedDatagram, at seconds: Double) -> ReceiveGate.Batch {
        _ = gate.offer(datagram, now: at(seconds))
        return gate.take(now: Date())
    }

    static func record(revision: Int, count: Int = 1) -> ActivityRecord {
        Fixtures.counterRecord(count: count, revision: revision, id: id)
    }

    // MARK: Forged sender ids

    /// Someone who holds the group key but not the victim's identity: its datagrams carry the
    /// victim's sender id and are signed with an identity of its own.
    static let outsider = DeviceIdentity(seed: Array(repeating: 0x66, count: 32))!

    static func forged(_ message: HandoffMessage, sequence: UInt64, at seconds: Double) -> ReceivedDatagram {
        let bytes = Fixtures.seal(message, sender: victim, sequence: sequence, sentAt: at(seconds), identity: outsider)
        return ReceivedDatagram(bytes: bytes, source: forgerAddress)
    }

    @Test("A victim's sender id under another identity's signature is refused; the victim is still heard")
    func forgedSenderIsRefused() {
        let gate = Self.gate()
        #expect(Self.offer(gate, Self.datagram(.announce(Self.record(revision: 1)), sequence: 5, at: 0), at: 0).statistics.accepted == 1)
        let refused = Self.offer(gate, Self.forged(.withdraw(activityID: Self.id), sequence: 6, at: 0.1), at: 0.1)
        #expect(refused.statistics[.badSignature] == 1 && refused.statistics.accepted == 0)
        #expect(refused.arrivals.isEmpty, "the forged WITHDRAW changes nothing")
        let next = Self.offer(gate, Self.datagram(.announce(Self.record(revision: 2)), sequence: 6, at: 1), at: 1)
        #expect(next.statistics.accepted == 1 && next.arrivals.count == 1, "the victim's next datagram is accepted")
    }

    @Test("A forgery with sequence 2⁶⁴−1 silences no one, heard first or not: the window moves only on a verified datagram")
    func forgeryCannotSilence() {
        let gate = Self.gate()
        let forged = Self.offer(gate, Self.forged(.query(types: []), sequence: .max, at: 0), at: 0)
        #expect(forged.statistics[.badSignature] == 1)
        let real = Self.offer(gate, Self.datagram(.announce(Self.record(revision: 1)), sequence: 1, at: 1), at: 1)
        #expect(real.statistics.accepted == 1 && real.arrivals.count == 1)
        let after = Self.offer(gate, Self.forged(.query(types: []), sequence: .max, at: 2), at: 2)
        #expect(after.statistics[.badSignature] == 1)
        let still = Self.offer(gate, Self.datagram(.announce(Self.record(revision: 2)), sequence: 2, at: 3), at: 3)
        #expect(still.statistics.accepted == 1 && still.arrivals.count == 1)
    }

    @Test("A device that changes address is heard at once from the new one")
    func roaming() {
        let gate = Self.gate()
        #expect(Self.offer(gate, Self.datagram(.announce(Self.record(revision: 1)), sequence: 1, at: 0), at: 0).statistics.accepted == 1)
        let moved = Self.datagram(.announce(Self.record(revision: 2)), sequence: 2, address: "198.51.100.9:47788", at: 0.5)
        let heard = Self.offer(gate, moved, at: 0.5)
        #expect(heard.statistics.accepted == 1 && heard.arrivals.first?.source == "198.51.100.9:47788")
    }

    @Test("Replay state expires after twice the clock skew, when a replay fails the skew check anyway")
    func replayStateExpires() throws {
        var table = SenderTable(limit: 8, lifetime: 120)
        table.accept(sender: Self.victim, sequence: 100, source: Self.victimAddress, at: Self.t0)
        #expect(table.verdict(sender: Self.victim, sequence: 100, at: Self.at(119.9)) == .duplicate)
        #expect(table.verdict(sender: Self.victim, sequence: 36, at: Self.at(119.9)) == .replay)
        #expect(table.verdict(sender: Self.victim, sequence: 101, at: Self.at(119.9)) == .fresh)
        #expect(table.verdict(sender: Self.victim, sequence: 100, at: Self.at(120)) == .fresh)
        // A datagram replayed after the lifetime is refused by the skew check instead.
        let old = Self.datagram(.withdraw(activityID: Self.id), sequence: 3, at: 0)
        #expect(throws: RejectionReason.clockSkew) { try Fixtures.decode(old.bytes, now: Self.at(120.001)) }
    }

    // MARK: Hijacked activities

    @Test("Another sender's ANNOUNCE of an activity, even at revision Int.max, neither hides nor takes it")
    func hijackedRevisionIsRefused() {
        let gate = Self.gate()
        #expect(Self.offer(gate, Self.datagram(.announce(Self.record(revision: 3)), sequence: 1, at: 0), at: 0).arrivals.count == 1)
        let hijack = Self.datagram(
            .announce(Self.record(revision: .max, count: 666)), sequence: 1, from: Self.forger, address: Self.forgerAddress, at: 0.1)
        let refused = Self.offer(gate, hijack, at: 0.1)
        #expect(refused.statistics[.notOwner] == 1 && refused.arrivals.isEmpty)
        let withdraw = Self.datagram(.withdraw(activityID: Self.id), sequence: 2, from: Self.forger, address: Self.forgerAddress, at: 0.2)
        #expect(Self.offer(gate, withdraw, at: 0.2).statistics[.notOwner] == 1)
        // The owner's next revision and its WITHDRAW still work.
        #expect(Self.offer(gate, Self.datagram(.announce(Self.record(revision: 4)), sequence: 2, at: 1), at: 1).arrivals.count == 1)
        #expect(Self.offer(gate, Self.datagram(.withdraw(activityID: Self.id), sequence: 3, at: 2), at: 2).arrivals.count == 1)
        // Once withdrawn, the id is free.
        let after = Self.datagram(.announce(Self.record(revision: 1)), sequence: 3, from: Self.forger, address: Self.forgerAddress, at: 3)
        #expect(Self.offer(gate, after, at: 3).arrivals.count == 1)
    }

    @Test("Revision memory expires: an activity silent for the memory's lifetime can be announced afresh")
    func revisionMemoryExpires() {
        let gate = Self.gate()
        let hijack = Self.datagram(
            .announce(Self.record(revision: .max)), sequence: 1, from: Self.forger, address: Self.forgerAddress, at: 0)
        #expect(Self.offer(gate, hijack, at: 0).arrivals.count == 1, "heard first, the forger owns the id for now")
        let early = Self.offer(gate, Self.datagram(.announce(Self.record(revision: 1)), sequence: 1, at: 60), at: 60)
        #expect(early.statistics[.notOwner] == 1)
        let late = Self.offer(gate, Self.datagram(.announce(Self.record(revision: 1)), sequence: 2, at: 120), at: 120)
        #expect(late.arrivals.count == 1 && late.statistics.accepted == 1)
    }

    @Test("The directory keeps an activity with the sender that announced it")
    func directoryOwnership() {
        var directory = PeerDirectory()
        #expect(directory.announce(Self.record(revision: 1), from: Self.victim, at: Self.t0) != nil)
        #expect(directory.announce(Self.record(revision: .max, count: 9), from: Self.forger, at: Self.at(0.1)) == nil)
        #expect(directory.withdraw(activityID: Self.id, from: Self.forger) == nil)
        #expect(directory[Self.id]?.record.revision == 1 && directory[Self.id]?.senderID == Self.victim)
        #expect(directory.announce(Self.record(revision: 2), from: Self.victim, at: Self.at(1)) != nil)
    }

    @Test("Repeats are told from changes by digest: same fields, same digest; any field changed, another")
    func digests() {
        let record = Self.record(revision: 2)
        #expect(record.digest == Self.record(revision: 2).digest)
        var changed: [ActivityRecord] = []
        for change: (inout ActivityRecord) -> Void in [
            { $0.revision = 3 }, { $0.title = "Other" }, { $0.title = nil }, { $0.userInfo["count"] = 2 },
            { $0.userInfo["count"] = .string("1") }, { $0.userInfo["more"] = .array([]) }, { $0.peer.name = "mallory" },
            { $0.savedAt = $0.savedAt.addingTimeInterval(0.001) }, { $0.keywords = [] }, { $0.requiredUserInfoKeys = ["count"] },
            { $0.webpageURL = "https://example.com" }, { $0.expiresAt = Self.t0 }, { $0.peer.protocolVersion = nil },
        ] {
            var copy = record
            change(&copy)
            changed.append(copy)
        }
        #expect(changed.count == 13)
        for other in changed { #expect(other.digest != record.digest, "\(other)") }
        #expect(Set(changed.map(\.digest)).count == changed.count)
        // Nesting is part of the digest: ["a": ["b"]] is not ["a", "b"].
        var nested = record
        nested.userInfo = ["x": .array([.array(["a"]), "b"])]
        var flat = record
        flat.userInfo = ["x": .array([.array(["a", "b"])])]
        #expect(nested.digest != flat.digest)
    }

    // MARK: Far-future savedAt

    @Test("A savedAt beyond arrival plus the skew is clamped when first heard, and repeats keep the clamp")
    func futureSavedAtIsClamped() {
        var directory = PeerDirectory()
        var forged = Fixtures.counterRecord(count: 666, revision: 1, id: "0000000F-0000-4000-8000-000000000000")
        forged.savedAt = Self.at(365 * 86_400)
        _ = directory.announce(forged, from: Self.forger, at: Self.t0, latestSavedAt: Self.at(60))
        #expect(directory[forged.activityID]?.record.savedAt == Self.at(60))
        _ = directory.announce(forged, from: Self.forger, at: Self.at(30), latestSavedAt: Self.at(90))
        #expect(directory[forged.activityID]?.record.savedAt == Self.at(60), "a repeat does not move the clamp forward")
        // A real save made after the clamp is the newest.
        var real = Self.record(revision: 5)
        real.savedAt = Self.at(61)
        _ = directory.announce(real, from: Self.victim, at: Self.at(61), latestSavedAt: Self.at(121))
        #expect(directory.activities.first?.id == Self.id)
        // An honest savedAt is left alone.
        #expect(directory[Self.id]?.record.savedAt == Self.at(61))
    }

    // MARK: QUERY floods

    @Test("QUERY answers: one asker at most every 250 ms, all askers 8 at once then 8 a second")
    func queryAnswerLimit() {
        var limit = QueryAnswerLimit()
        let asker = Self.forger
        let first = limit.allows(asker, at: Self.t0, pending: false)
        let tooSoon = limit.allows(asker, at: Self.at(0.2), pending: false)
        let later = limit.allows(asker, at: Self.at(0.3), pending: false)
        #expect(first && !tooSoon && later)
        // A QUERY sharing a pending answer costs no token.
        let shared = limit.allows(Self.victim, at: Self.at(0.3), pending: true)
        #expect(shared)
        // 10,000 forged askers within one second: the 6 tokens left, then 8 a second.
        var allowed = 0
        for n in 0..<10_000 {
            let id = SenderID(bytes: Array(repeating: 0, count: 12) + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init))!
            if limit.allows(id, at: Self.at(0.3 + Double(n) / 10_000), pending: false) { allowed += 1 }
        }
        #expect(allowed >= 6 && allowed <= 6 + 8 + 1, "\(allowed) answers")
    }

    @Test("A flood of QUERYs from 5,000 sender ids over 5 s gets a bounded number of answers")
    func queryFloodIsBounded() throws {
        var configuration = ActivityCenter.Configuration(peer: Fixtures.peer, senderID: Fixtures.sender)
        configuration.burstRepeats = 0
        var core = HandoffCore(configuration: configuration, registry: Fixtures.registry, seed: 1)
        let t0 = VirtualTime.t0
        core.start(now: t0)
        _ = core.makeCurrent(activityID: Self.id, isEligible: true, now: t0)
        core.requestSave(activityID: Self.id, now: t0)
        _ = core.tick(now: t0)
        _ = core.saveFinished(Self.record(revision: 0), now: t0)
        var sent = 0
        for n in 0..<5_000 {
            let now = VirtualTime.at(Double(n) / 1_000)
            var batch = BusDelivery()
            let id = SenderID(bytes: Array(repeating: 0, count: 12) + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init))!
            batch.arrivals = [.init(message: .query(types: nil), sender: id, source: nil, at: now.date)]
            _ = core.receive(batch, now: now)
            while let due = core.nextDeadline, due <= now.instant {
                sent += core.tick(now: t0.at(due)).filter { if case .send(.announce, _) = $0 { true } else { false } }.count
            }
        }
        // 8 at once, 8 a second for 5 s, and the 5 ordinary repeats: at most 53.
        #expect(sent >= 20 && sent <= 53, "\(sent) ANNOUNCEs")
    }
}
