import Crypto
import Foundation
import Testing
@testable import Handoff
@testable import PropertyList
@testable import HandoffWire

/// Large records in the core: what a save publishes when the ANNOUNCE does not fit one
/// datagram, and what an OFFER does on arrival (docs/PROTOCOL.md, "OFFER", "Saving").
@Suite("Offering large records, in virtual time")
struct HandoffCoreOfferTests {
    static let t0 = HandoffCoreTests.t0.date
    static let id = "0D3C2B1A-0000-4000-8000-00000000A11E"

    static func core(port: Int? = 47900, _ configure: (inout ActivityCenter.Configuration) -> Void = { _ in })
        -> HandoffCore
    {
        var core = HandoffCoreTests.core(configure)
        core.streamPort = port
        _ = core.makeCurrent(activityID: id, isEligible: true, now: VirtualTime.t0)
        return core
    }

    /// An editing record with `characters` characters of mixed-script text.
    static func editing(characters: Int, revision: Int = 0) -> ActivityRecord {
        let pattern = Array("Grüße, 你好 👋 text\n")
        let text = String((0..<characters).map { pattern[$0 % pattern.count] })
        return ActivityRecord(
            activityID: id, activityType: "dev.baton.editing", revision: revision, savedAt: t0,
            userInfo: ["text": .string(text), "cursorLine": 2, "cursorColumn": 5, "fileName": "notes.txt"],
            title: "Editing notes.txt", peer: Fixtures.peer)
    }

    /// Saves `record` at `now` and returns the actions.
    static func save(_ core: inout HandoffCore, _ record: ActivityRecord, at now: Date) -> [HandoffCore.Action] {
        core.requestSave(activityID: id, now: VirtualTime.reading(now))
        guard core.tick(now: VirtualTime.reading(now)).contains(.save(activityID: id)) else { return [] }
        return core.saveFinished(record, now: VirtualTime.reading(now))
    }

    static func sent(_ actions: [HandoffCore.Action]) -> [HandoffMessage] {
        actions.compactMap { if case .send(let message, _) = $0 { message } else { nil } }
    }

    static func datagramSize(_ message: HandoffMessage) -> Int {
        DatagramHeader.minimumDatagramLength + DatagramCodec.plaintext(message, sentAt: t0).count
    }

    @Test("A record whose ANNOUNCE fits 1,200 bytes goes as ANNOUNCE; a larger one as OFFER with its state kept")
    func announceOrOffer() throws {
        var core = Self.core()
        let small = Self.sent(Self.save(&core, Self.editing(characters: 100), at: Self.t0))
        guard case .announce? = small.first else { Issue.record("expected ANNOUNCE, got \(small)"); return }
        #expect(Self.datagramSize(small[0]) <= 1200)

        let actions = Self.save(&core, Self.editing(characters: 20_000, revision: 1), at: Self.t0.addingTimeInterval(1))
        guard case .shelve(let shelvedID, let revision, let digest, let shelvedRecord)? = actions.first,
            case .offer(let described, let offer)? = Self.sent(actions).first
        else { Issue.record("expected shelve then OFFER, got \(actions)"); return }
        #expect(shelvedID == Self.id && revision == 2 && described.revision == 2)
        // The record shelved makes the state a fetch is served: the size and digest offered.
        let state = HandoffCore.stateEncoding(of: shelvedRecord)
        #expect(HandoffCore.stateEncoding(of: shelvedRecord) == state, "the same bytes every time")
        #expect(offer == StateOffer(size: state.count, digest: Array(SHA256.hash(data: state)), port: 47900))
        #expect(digest == offer.digest)
        #expect(Self.datagramSize(.offer(described, state: offer)) <= 1200)
        // The summary is for showing: small entries only, never the text.
        #expect(described.userInfo == ["cursorLine": 2, "cursorColumn": 5, "fileName": "notes.txt"])
        #expect(described.title == "Editing notes.txt")
        // The state is the whole record, as an ANNOUNCE saved then would carry it.
        guard case .dictionary(let payload) = try BinaryPropertyListReader(limits: .init(maxBytes: 1 << 24)).read(state)
        else { Issue.record("state is not a dictionary"); return }
        guard case .announce(let record) = try HandoffMessage.decode(kind: .announce, payload: payload).message else {
            Issue.record("state is not an ANNOUNCE payload"); return
        }
        #expect(record.userInfo["text"] == Self.editing(characters: 20_000).userInfo["text"])
        #expect(record.revision == 2)
    }

    @Test("Repeats and QUERY answers of a large record are its OFFER; resigning withdraws and drops the state")
    func repeatsAreTheOffer() {
        var core = Self.core { $0.burstRepeats = 0 }
        let actions = Self.save(&core, Self.editing(characters: 5000), at: Self.t0)
        let offer = Self.sent(actions).first
        #expect(offer?.kind == .offer)
        let repeats = Self.sent(core.tick(now: VirtualTime.reading(Self.t0.addingTimeInterval(1))))
        #expect(repeats == [offer].compactMap { $0 })
        let resign = core.resign(activityID: Self.id, now: VirtualTime.reading(Self.t0.addingTimeInterval(1.5)))
        #expect(Self.sent(resign) == [.withdraw(activityID: Self.id)])
        #expect(resign.contains(.unshelve(activityID: Self.id)))
        #expect(Self.sent(core.tick(now: VirtualTime.reading(Self.t0.addingTimeInterval(2)))).isEmpty)
    }

    @Test("A summary leaves out the longest entry first, and between equal lengths the key greater by its UTF-8 bytes")
    func summaryOrder() {
        // "e\u{301}" (e and a combining acute) sorts after "fzz" in Swift's String order, which
        // compares the precomposed é (U+E9); by its UTF-8 bytes (65 CC 81 against 66 7A 7A) it is
        // smaller, so "fzz" goes first. Both weigh 3 + 4 bytes.
        let decomposed = (key: "e\u{301}", value: PropertyListValue.string("aaaa"))
        let plain = (key: "fzz", value: PropertyListValue.string("aaaa"))
        #expect(decomposed.key > plain.key, "the String order this rule does not use")
        #expect(HandoffCore.leftOutBefore(plain, decomposed))
        #expect(!HandoffCore.leftOutBefore(decomposed, plain))
        let long = (key: "a", value: PropertyListValue.string(String(repeating: "z", count: 20)))
        let number = (key: "zzzz", value: PropertyListValue.integer(7))
        #expect(HandoffCore.leftOutBefore(long, plain))
        #expect(HandoffCore.leftOutBefore(number, decomposed), "4 + 8 bytes outweigh 3 + 4")
    }

    @Test("Too large for the state limit, for a datagram without a stream, or a description too long: the save fails")
    func refusals() {
        var limited = Self.core { $0.stateLimit = 10_000 }
        let over = Self.save(&limited, Self.editing(characters: 20_000), at: Self.t0)
        guard case .saveFailed(_, .stateTooLarge(let bytes, 10_000))? = over.first else {
            Issue.record("expected stateTooLarge, got \(over)"); return
        }
        #expect(bytes > 10_000 && Self.sent(over).isEmpty)
        #expect(HandoffError.stateTooLarge(bytes: 40 * 1024 * 1024, limit: 16 * 1024 * 1024).description
            == "The activity record is 40 MB encoded; Baton hands off records up to 16 MB.")

        var streamless = Self.core(port: nil)
        let noStream = Self.save(&streamless, Self.editing(characters: 5000), at: Self.t0)
        guard case .saveFailed(_, .payloadTooLarge(_, 1200))? = noStream.first else {
            Issue.record("expected payloadTooLarge, got \(noStream)"); return
        }

        var core = Self.core()
        var titled = Self.editing(characters: 5000)
        titled.title = String(repeating: "T", count: 2000)
        let long = Self.save(&core, titled, at: Self.t0)
        guard case .saveFailed(_, .descriptionTooLarge(_, 1200))? = long.first else {
            Issue.record("expected descriptionTooLarge, got \(long)"); return
        }
        #expect(core.lastPublished == nil)
    }

    @Test("No datagram the core sends is over the limit, whatever the size of the text", arguments: [600, 1200, 1400])
    func everyDatagramFits(limit: Int) {
        var core = Self.core { $0.maximumDatagramSize = limit }
        var sizes: [Int] = []
        for (step, characters) in [0, 10, 100, 300, 500, 700, 1000, 5000, 50_000].enumerated() {
            let actions = Self.save(&core, Self.editing(characters: characters, revision: step), at: Self.t0.addingTimeInterval(Double(step)))
            sizes += Self.sent(actions).map(Self.datagramSize)
        }
        #expect(sizes.count == 9)
        #expect(sizes.allSatisfy { $0 <= limit }, "sizes \(sizes)")
    }

    @Test("An OFFER enters the directory with what to fetch and where from; ANNOUNCE and OFFER share revisions")
    func offerArrives() throws {
        var core = Self.core()
        let other = Fixtures.sender(7)
        let state = StateOffer(size: 30_000, digest: Array(repeating: 1, count: 32), port: 40_001)
        var described = Self.editing(characters: 0, revision: 4)
        described.userInfo = ["fileName": "big.txt"]
        func arrive(_ message: HandoffMessage, at seconds: Double) -> [HandoffCore.Action] {
            var batch = BusDelivery()
            batch.arrivals = [.init(message: message, sender: other, source: "10.77.0.12:47788", at: Self.t0.addingTimeInterval(seconds))]
            return core.receive(batch, now: VirtualTime.reading(Self.t0.addingTimeInterval(seconds)))
        }
        #expect(arrive(.offer(described, state: state), at: 0).contains(.nearbyChanged))
        let entry = try #require(core.directory[Self.id])
        #expect(entry.offer == state && entry.stateSize == 30_000 && entry.source == "10.77.0.12:47788")
        #expect(entry.record.userInfo == ["fileName": "big.txt"])

        var older = Self.editing(characters: 10, revision: 3)
        older.activityID = Self.id
        _ = arrive(.announce(older), at: 0.1)
        #expect(core.directory[Self.id]?.offer == state, "a lower revision changes nothing")

        let newer = Self.editing(characters: 10, revision: 5)
        _ = arrive(.announce(newer), at: 0.2)
        #expect(core.directory[Self.id]?.offer == nil)
        #expect(core.directory[Self.id]?.record == newer)
    }

    @Test("An OFFER with a size, digest or port out of range is refused as invalidValue")
    func offerValues() {
        let described = Self.editing(characters: 0, revision: 1)
        let bad = [
            StateOffer(size: 0, digest: Array(repeating: 1, count: 32), port: 1),
            StateOffer(size: 10, digest: Array(repeating: 1, count: 31), port: 1),
            StateOffer(size: 10, digest: Array(repeating: 1, count: 32), port: 0),
            StateOffer(size: 10, digest: Array(repeating: 1, count: 32), port: 65_536),
        ]
        for (n, state) in bad.enumerated() {
            let datagram = Fixtures.seal(.offer(described, state: state), sequence: UInt64(n + 1), sentAt: Self.t0)
            #expect(throws: RejectionReason.invalidValue) { try Fixtures.decode(datagram, now: Self.t0) }
        }
        let good = Fixtures.seal(
            .offer(described, state: StateOffer(size: 1, digest: Array(repeating: 1, count: 32), port: 65_535)),
            sequence: 9, sentAt: Self.t0)
        #expect(throws: Never.self) { try Fixtures.decode(good, now: Self.t0) }
    }
}

extension HandoffCoreOfferTests {
    @Test("Saves of a large state are spaced 1 ms per 25 KB of state, at most 2 s; small ones keep 20 ms")
    func largeStatesSaveLessOften() {
        var core = Self.core()
        _ = Self.save(&core, Self.editing(characters: 100), at: Self.t0)
        #expect(core.saveWindow == .milliseconds(20))
        let actions = Self.save(&core, Self.editing(characters: 3_000_000, revision: 1), at: Self.t0.addingTimeInterval(1))
        guard case .shelve(_, _, _, let shelved)? = actions.first else { Issue.record("expected an OFFER"); return }
        let state = HandoffCore.stateEncoding(of: shelved)
        #expect(core.saveWindow == .milliseconds(state.count / 25_000))
        core.requestSave(activityID: Self.id, now: VirtualTime.reading(Self.t0.addingTimeInterval(1.001)))
        let due = core.nextDeadline.map(VirtualTime.seconds) ?? 0
        #expect(abs(due - (1 + Double(state.count / 25_000) / 1000)) < 1e-6, "due at \(due) s")
        core.lastStateSize = 500_000_000
        #expect(core.saveWindow == .seconds(2))
    }
}
