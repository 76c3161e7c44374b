import Foundation
import Testing
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// Records too large for one datagram, end to end between two centers: the OFFER, the fetch
/// over the (in-memory) state stream, and what a continue restores — or does not.
@MainActor
@Suite("Large state between two centers")
struct LargeStateTests {
    /// Two centers on one in-memory network, each serving its shelf on the in-memory streams.
    @MainActor
    struct Pair {
        let network = InMemoryNetwork()
        let streams = InMemoryStreams()
        let a: ActivityCenter
        let b: ActivityCenter
        let server: InMemoryStreamServer
        let appA = RecordingApp()
        let appB = RecordingApp()

        /// `bobsClock` runs Bob's center, its fetches' timeouts among them.
        init(bobsClock: any HandoffClock = SystemClock()) {
            let shelfA = StateShelf()
            let centerA = Self.center(network, "alice@a", StateStreamSetup(shelf: shelfA, port: 40_001, dialer: streams))
            // Served as alice's center is: its device and sender id, to the devices it lists.
            server = streams.serve(
                host: "alice@a", port: 40_001, identity: centerA.membership.streamIdentity(senderID: centerA.senderID),
                trust: centerA.membership.streamTrust, shelf: shelfA)
            a = centerA
            b = Self.center(network, "bob@b", StateStreamSetup(shelf: StateShelf(), port: 40_002, dialer: streams), clock: bobsClock)
            a.applicationDelegate = appA
            b.applicationDelegate = appB
        }

        static func center(
            _ network: InMemoryNetwork, _ name: String, _ stream: StateStreamSetup, clock: any HandoffClock = SystemClock()
        ) -> ActivityCenter {
            var config = ActivityCenter.Configuration(
                peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"))
            config.repeatInterval = .milliseconds(50)
            let center = ActivityCenter(
                registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key),
                transport: network.makeTransport(name: name), configuration: config, clock: clock, stateStream: stream)
            center.start()
            return center
        }

        /// Publishes an editing session of `text` on `a` and waits until `b` lists its OFFER.
        func publish(_ text: String, cursorLine: Int = 0) async throws -> (UserActivity, NearbyActivity) {
            let activity = UserActivity(activityType: "dev.baton.editing", center: a)
            activity.delegate = appA
            activity.title = "Editing big.txt"
            activity.userInfo = ["text": .string(text), "cursorLine": .integer(cursorLine), "cursorColumn": 0, "fileName": "big.txt"]
            try activity.becomeCurrent()
            let id = activity.activityID
            let listed = await waitUntil { b.nearby.contains { $0.id == id && $0.offer != nil && $0.record.revision == activity.revision } }
            let entry = try #require(listed ? b.nearby.first { $0.id == id } : nil, "b never listed the OFFER")
            return (activity, entry)
        }

        func shutdown() async {
            await a.shutdown()
            await b.shutdown()
        }
    }

    /// About `bytes` of mixed-script text, lines of ASCII with accents, CJK and emoji.
    static func text(bytes: Int, seed: Int = 0) -> String {
        let line = "Line \(seed): Grüße, 你好, 👋 — the quick brown fox jumps over the lazy dog.\n"
        return String(repeating: line, count: max(1, bytes / line.utf8.count))
    }

    @Test("A 200 KB session is offered by description only, fetched, restored whole, and CONTINUED reaches the source")
    func continueLarge() async throws {
        let pair = Pair()
        let text = Self.text(bytes: 200_000)
        let (_, entry) = try await pair.publish(text, cursorLine: 7)
        // The directory holds the description: the summary, never the text.
        #expect(entry.record.userInfo["text"] == nil)
        #expect(entry.record.userInfo["fileName"] == "big.txt")
        #expect((entry.stateSize ?? 0) > 200_000)

        var reports: [TransferProgress] = []
        let continued = try await pair.b.continueActivity(entry) { reports.append($0) }
        #expect(continued.userInfo["text"] == .string(text))
        #expect(continued.userInfo["cursorLine"] == 7)
        #expect(pair.appB.restored.first?.userInfo["text"] == .string(text))
        // The app is asked once, before anything is fetched.
        #expect(pair.appB.log == ["willContinue", "continue", "restore"])
        #expect(await waitUntil { pair.appA.continuedBy.map(\.name) == ["bob@b"] })
        #expect(await waitUntil { reports.last?.received == entry.stateSize })
        #expect(reports.allSatisfy { $0.total == entry.stateSize && $0.peerName == "alice@a" })
        await pair.shutdown()
    }

    @Test("A fetch of the previous revision still succeeds after a new save; older ones are gone")
    func previousRevisionStaysFetchable() async throws {
        let pair = Pair()
        let (activity, first) = try await pair.publish(Self.text(bytes: 50_000, seed: 1))
        activity.userInfo["text"] = .string(Self.text(bytes: 50_000, seed: 2))
        let second = try #require(await waitUntil { pair.b.nearby.first?.record.revision == first.record.revision + 1 }
            ? pair.b.nearby.first : nil)
        let continued = try await pair.b.continueActivity(first) { _ in }
        #expect(continued.userInfo["text"] == .string(Self.text(bytes: 50_000, seed: 1)))

        activity.userInfo["text"] = .string(Self.text(bytes: 50_000, seed: 3))
        #expect(await waitUntil { pair.b.nearby.first?.record.revision == second.record.revision + 1 })
        let gone = await #expect(throws: HandoffError.self) { try await pair.b.continueActivity(first) { _ in } }
        guard case .transferFailed(let peer, let reason)? = gone else { Issue.record("expected transferFailed, got \(String(describing: gone))"); return }
        #expect(peer == "alice@a")
        #expect(reason.contains("no longer keeps this revision"), "reason: \(reason)")
        await pair.shutdown()
    }

    @Test("Connections cut mid-stream are resumed and the state arrives byte-exact")
    func resumesAfterCuts() async throws {
        let pair = Pair()
        let text = Self.text(bytes: 300_000)
        // The first connections (counted from 0 or 1, either way at least three) are cut at
        // different offsets, mid-frame.
        pair.server.setFaults { connection in connection <= 3 ? StreamFaults(cutAfter: 60_000 + connection * 7_919) : .none }
        let (_, entry) = try await pair.publish(text)
        var reports: [TransferProgress] = []
        let continued = try await pair.b.continueActivity(entry) { reports.append($0) }
        #expect(continued.userInfo["text"] == .string(text))
        #expect(pair.server.connectionCount >= 4)
        #expect(await waitUntil { (reports.map(\.resumes).max() ?? 0) >= 3 })
        await pair.shutdown()
    }

    @Test("A corrupted stream restores nothing and says why")
    func corruptionRestoresNothing() async throws {
        let pair = Pair()
        pair.server.setFaults(StreamFaults(flipAt: 20_000))
        let (_, entry) = try await pair.publish(Self.text(bytes: 100_000))
        let error = await #expect(throws: HandoffError.self) { try await pair.b.continueActivity(entry) { _ in } }
        guard case .transferFailed(let peer, _)? = error else { Issue.record("expected transferFailed, got \(String(describing: error))"); return }
        #expect(peer == "alice@a")
        #expect(pair.appB.restored.isEmpty)
        #expect(pair.appB.failures.count == 1)
        #expect(error?.description.hasSuffix("Nothing was restored.") == true)
        await pair.shutdown()
    }

    @Test("Cancelling a fetch ends it with .cancelled and restores nothing")
    func cancelRestoresNothing() async throws {
        // Bob's fetch in virtual time that stands still: on the real clock, a machine busy with
        // the whole suite could let its 3 s without a byte pass before the cancel, and the fetch
        // would resume on a connection that is not stalled and succeed.
        let pair = Pair(bobsClock: ManualClock(start: Date()))
        // Two DATA frames arrive (progress is reported), then nothing more.
        pair.server.setFaults(StreamFaults(stallAfter: 150_000))
        let (_, entry) = try await pair.publish(Self.text(bytes: 100_000))
        var reports: [TransferProgress] = []
        let b = pair.b
        let task = Task { @MainActor in try await b.continueActivity(entry) { reports.append($0) } }
        #expect(await waitUntil { !reports.isEmpty })
        task.cancel()
        let result = await task.result
        guard case .failure(let error as HandoffError) = result, error == .cancelled else {
            Issue.record("expected .cancelled, got \(result)"); return
        }
        #expect(pair.appB.restored.isEmpty)
        await pair.shutdown()
    }

    @Test("An OFFER over this peer's state limit is refused before any byte is fetched")
    func overLimitIsRefused() async throws {
        let pair = Pair()
        let (_, entry) = try await pair.publish(Self.text(bytes: 40_000))
        var small = entry
        small.offer?.size = ActivityCenter.Configuration.defaultStateLimit + 1
        let error = await #expect(throws: HandoffError.self) { try await pair.b.continueActivity(small) { _ in } }
        #expect(error == .stateTooLarge(bytes: ActivityCenter.Configuration.defaultStateLimit + 1, limit: ActivityCenter.Configuration.defaultStateLimit))
        #expect(pair.server.connectionCount == 0)
        await pair.shutdown()
    }

    @Test("The synchronous continue refuses an OFFER instead of restoring its summary")
    func synchronousContinueRefusesOffers() async throws {
        let pair = Pair()
        let (_, entry) = try await pair.publish(Self.text(bytes: 40_000))
        #expect(throws: HandoffError.self) { try pair.b.continueActivity(entry) }
        #expect(pair.appB.restored.isEmpty)
        await pair.shutdown()
    }
}

@Suite("Where a large activity is fetched from")
struct SourceHostTests {
    static func nearby(source: String?) -> NearbyActivity {
        let record = ActivityRecord(
            activityID: "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11", activityType: "dev.baton.counter", revision: 1,
            savedAt: Date(), userInfo: ["count": 1],
            peer: PeerInfo(name: "a", host: "a.local", app: "baton", appVersion: "1.0.0"))
        return NearbyActivity(record: record, senderID: SenderID(bytes: Array(0xA0...0xAF))!, lastHeard: Date(), source: source)
    }

    @Test("An address loses its port; a relay source stays whole, for the relay's dialer")
    func sourceHost() {
        #expect(Self.nearby(source: "10.77.0.11:47788").sourceHost == "10.77.0.11")
        #expect(Self.nearby(source: "[fe80::1]:47788").sourceHost == "fe80::1")
        #expect(Self.nearby(source: "relay:e0fad7b4be8a2694").sourceHost == "relay:e0fad7b4be8a2694")
        #expect(Self.nearby(source: nil).sourceHost == nil)
    }
}
