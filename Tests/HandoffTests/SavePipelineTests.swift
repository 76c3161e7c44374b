import Foundation
import Testing
@testable import Handoff
import HandoffTesting

@MainActor
@Suite("The save pipeline")
struct SavePipelineTests {
    @Test("The three hooks run in order, each sees the one before, and the record carries all three")
    func hooksInOrder() async throws {
        let network = InMemoryNetwork()
        let registry = ActivityTypeRegistry(declaredTypes: ["dev.baton.test"])
        let a = makeCenter(on: network, name: "a", registry: registry)
        let b = makeCenter(on: network, name: "b", registry: registry)
        let app = RecordingApp()
        a.applicationDelegate = app
        app.onWillSave = { $0.userInfo["first"] = 1 }
        app.onUpdate = { activity in
            activity.userInfo["second"] = .integer((activity.userInfo["first"]?.intValue ?? -100) + 1)
        }
        app.onDidUpdate = { activity in
            activity.userInfo["third"] = .integer((activity.userInfo["second"]?.intValue ?? -100) + 1)
        }
        let activity = UserActivity(activityType: "dev.baton.test", center: a)
        activity.delegate = app
        activity.responder = app
        try activity.becomeCurrent()

        #expect(await waitUntil { b.nearby.first?.record.userInfo["third"] != nil })
        #expect(app.log.prefix(3) == ["willSave", "updateState", "didUpdate"])
        let record = try #require(b.nearby.first?.record)
        #expect(record.userInfo == ["first": 1, "second": 2, "third": 3])
        #expect(record.revision == 1)
        #expect(activity.revision == 1)
        await a.shutdown()
        await b.shutdown()
    }

    @Test("1,000 changes in a tight loop make a bounded number of saves and publish the last state")
    func tightLoopIsCoalesced() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "a")
        let b = makeCenter(on: network, name: "b")
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 0]
        try activity.becomeCurrent()
        for i in 1...1000 { activity.userInfo["count"] = .integer(i) }

        #expect(await waitUntil { b.nearby.first?.record.userInfo["count"] == 1000 })
        #expect(a.saveCount <= 2, "saves: \(a.saveCount)")
        #expect(a.lastPublished?.userInfo["count"] == 1000)
        await a.shutdown()
        await b.shutdown()
    }

    @Test("Changes that keep coming are saved at most once per window, and the last one is saved")
    func pacedChangesAreThrottled() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "a") { $0.saveWindow = .milliseconds(20) }
        var saveTimes: [Date] = []
        let events = a.events()
        let watcher = Task { @MainActor in
            for await event in events {
                if case .published(let record) = event { saveTimes.append(record.savedAt) }
            }
        }
        defer { watcher.cancel() }
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 0]
        try activity.becomeCurrent()
        let start = ContinuousClock.now
        var changes = 0
        while ContinuousClock.now - start < .milliseconds(200) {
            changes += 1
            activity.userInfo["count"] = .integer(changes)
            try await Task.sleep(for: .milliseconds(1))  // wait-ok: paces the changes, waits for no event
        }
        let elapsed = ContinuousClock.now - start
        #expect(await waitUntil { a.lastPublished?.userInfo["count"] == .integer(changes) })
        let allowed = Int(elapsed / .milliseconds(20)) + 3
        #expect(a.saveCount <= allowed, "\(a.saveCount) saves for \(changes) changes in \(elapsed)")
        let gaps = zip(saveTimes.dropFirst(), saveTimes).map { $0.timeIntervalSince($1) }
        #expect(gaps.allSatisfy { $0 >= 0.019 }, "saves closer than the window: \(gaps)")
        await a.shutdown()
    }

    @Test("A userInfo that breaks the schema is refused with a message naming type, key and types")
    func schemaViolationIsRefused() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "a")
        let events = a.events()
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": "five"]
        try activity.becomeCurrent()
        var failure: HandoffError?
        for await event in events {
            if case .saveFailed(_, let error) = event { failure = error; break }
        }
        let error = try #require(failure)
        #expect(error == .schemaViolation(type: "dev.baton.counter", key: "count", expected: .integer, actual: .string))
        #expect(error.description == "userInfo key 'count' of dev.baton.counter must be an integer, but it is a string.")
        #expect(a.lastPublished == nil)
        #expect(a.sentCount == 0)
        await a.shutdown()
    }

    @Test("Missing required keys, an undeclared type and an oversized record are refused")
    func otherRefusals() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "a")
        var failures: [HandoffError] = []
        let events = a.events()
        let watcher = Task { @MainActor in
            for await event in events {
                if case .saveFailed(_, let error) = event { failures.append(error) }
            }
        }
        defer { watcher.cancel() }
        var taken = 0
        func nextFailure() async -> HandoffError? {
            guard await waitUntil({ failures.count > taken }) else { return nil }
            taken += 1
            return failures[taken - 1]
        }

        let editing = UserActivity(activityType: "dev.baton.editing", center: a)
        editing.userInfo = ["text": "hi"]
        editing.requiredUserInfoKeys = ["fileName"]
        try editing.becomeCurrent()
        let missing = await nextFailure()
        #expect(missing == .missingRequiredKeys(type: "dev.baton.editing", keys: ["cursorLine", "cursorColumn", "fileName"]))
        #expect(missing?.description == "dev.baton.editing is missing required userInfo keys 'cursorLine', 'cursorColumn', 'fileName'.")

        let undeclared = UserActivity(activityType: "com.example.other", center: a)
        try undeclared.becomeCurrent()
        let notDeclared = await nextFailure()
        #expect(notDeclared == .undeclaredType(type: "com.example.other", declared: ["dev.baton.counter", "dev.baton.editing", "dev.baton.shell"]))

        let big = UserActivity(activityType: "dev.baton.editing", center: a)
        big.userInfo = ["text": .string(String(repeating: "x", count: 70_000)), "cursorLine": 0, "cursorColumn": 0]
        try big.becomeCurrent()
        guard case .payloadTooLarge(let bytes, let limit)? = await nextFailure() else {
            Issue.record("expected payloadTooLarge")
            return
        }
        // This center has no state stream, so a record over one datagram has no way to go.
        #expect(bytes > 70_000)
        #expect(limit == 1200)
        #expect(a.sentCount == 0)

        // The session keeps working: a smaller state publishes.
        big.userInfo["text"] = "short again"
        #expect(await waitUntil { a.lastPublished?.userInfo["text"] == "short again" })
        await a.shutdown()
    }

    @Test("webpageURL takes http and https only")
    func webpageURL() throws {
        let center = ActivityCenter(
            registry: Fixtures.registry, membership: .sharedDevice(of: Fixtures.key), transport: InMemoryNetwork().makeTransport(),
            configuration: .init(peer: Fixtures.peer))
        let activity = UserActivity(activityType: "dev.baton.counter", center: center)
        try activity.setWebpageURL(URL(string: "https://example.com/notes"))
        #expect(activity.webpageURL?.absoluteString == "https://example.com/notes")
        #expect(throws: HandoffError.invalidWebpageURL("ftp://example.com/x")) {
            try activity.setWebpageURL(URL(string: "ftp://example.com/x"))
        }
        #expect(throws: HandoffError.invalidWebpageURL("file:///etc/passwd")) {
            try activity.setWebpageURL(URL(string: "file:///etc/passwd"))
        }
        #expect(activity.webpageURL?.absoluteString == "https://example.com/notes")
    }

    @Test("Becoming current replaces the previous activity, which peers forget at once")
    func becomingCurrentWithdrawsThePrevious() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "a")
        let b = makeCenter(on: network, name: "b")
        let first = UserActivity(activityType: "dev.baton.counter", center: a)
        first.userInfo = ["count": 1]
        try first.becomeCurrent()
        #expect(await waitUntil { b.nearby.map(\.id) == [first.activityID] })

        let second = UserActivity(activityType: "dev.baton.counter", center: a)
        second.userInfo = ["count": 2]
        try second.becomeCurrent()
        #expect(!first.isCurrent)
        #expect(second.isCurrent)
        #expect(await waitUntil { b.nearby.map(\.id) == [second.activityID] })

        second.invalidate()
        #expect(await waitUntil { b.nearby.isEmpty })
        #expect(throws: HandoffError.invalidated(type: "dev.baton.counter")) { try second.becomeCurrent() }

        // Not eligible: saved, but not published.
        let quiet = UserActivity(activityType: "dev.baton.counter", center: a)
        quiet.isEligibleForHandoff = false
        quiet.userInfo = ["count": 3]
        try quiet.becomeCurrent()
        #expect(await waitUntil { quiet.revision == 1 })
        #expect(b.nearby.isEmpty)
        await a.shutdown()
        await b.shutdown()
    }
}
