import Foundation
import Testing
@testable import Handoff
import HandoffTesting

@MainActor
@Suite("Two peers on the in-memory transport")
struct TwoPeerTests {
    @Test("Publish, continue, and CONTINUED reaches the source's delegate")
    func publishAndContinue() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "alice@a")
        let b = makeCenter(on: network, name: "bob@b")
        let appA = RecordingApp()
        let appB = RecordingApp()
        a.applicationDelegate = appA
        b.applicationDelegate = appB
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.delegate = appA
        activity.title = "Counting"
        activity.userInfo = ["count": 5]
        try activity.becomeCurrent()

        let continued = try await b.continueActivity(type: "dev.baton.counter", timeout: .seconds(60))
        #expect(continued.userInfo["count"] == 5)
        #expect(continued.title == "Counting")
        #expect(continued.peer?.name == "alice@a")
        #expect(appB.log == ["willContinue", "continue", "restore"])
        #expect(appB.restored.first?.userInfo["count"] == 5)

        #expect(await waitUntil { appA.continuedBy.map(\.name) == ["bob@b"] })
        await a.shutdown()
        await b.shutdown()
    }

    @Test("Continuing with nothing nearby fails with notFound, naming what was looked for")
    func nothingNearby() async throws {
        let network = InMemoryNetwork()
        let b = makeCenter(on: network, name: "bob@b")
        let app = RecordingApp()
        b.applicationDelegate = app
        let error = await #expect(throws: HandoffError.self) {
            try await b.continueActivity(type: "dev.baton.counter", timeout: .milliseconds(150))
        }
        guard case .notFound(let type, _, let waited, let endpoint)? = error else {
            Issue.record("expected notFound, got \(String(describing: error))")
            return
        }
        #expect(type == "dev.baton.counter")
        #expect(waited == .milliseconds(150))
        #expect(endpoint.contains("in-memory"))
        #expect(app.failures.count == 1)
        #expect(error?.description.hasPrefix("No continuable dev.baton.counter activity was heard on") == true)
        await b.shutdown()
    }

    @Test("An undeclared type or a schema violation is refused on continue")
    func refusedOnContinue() async throws {
        let network = InMemoryNetwork()
        let permissive = ActivityTypeRegistry(declaredTypes: ["dev.baton.counter", "com.example.secret"])
        let a = makeCenter(on: network, name: "alice@a", registry: permissive)
        let b = makeCenter(on: network, name: "bob@b")
        let app = RecordingApp()
        b.applicationDelegate = app

        let secret = UserActivity(activityType: "com.example.secret", center: a)
        try secret.becomeCurrent()
        let undeclared = await #expect(throws: HandoffError.self) {
            try await b.continueActivity(type: "com.example.secret", timeout: .seconds(60))
        }
        #expect(undeclared == .undeclaredType(type: "com.example.secret", declared: ["dev.baton.counter", "dev.baton.editing", "dev.baton.shell"]))

        let wrong = UserActivity(activityType: "dev.baton.counter", center: a)
        wrong.userInfo = ["count": 1.5]
        try wrong.becomeCurrent()
        let violation = await #expect(throws: HandoffError.self) {
            try await b.continueActivity(type: "dev.baton.counter", timeout: .seconds(60))
        }
        #expect(violation == .schemaViolation(type: "dev.baton.counter", key: "count", expected: .integer, actual: .real))
        #expect(app.restored.isEmpty)
        #expect(app.failures.count == 2)
        await a.shutdown()
        await b.shutdown()
    }

    @Test("With 30% loss, duplicates and reordering, the receiver converges and never goes backwards",
          arguments: [UInt64(1), 2, 3])
    func convergesUnderFaults(seed: UInt64) async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "alice@a")
        let b = makeCenter(
            on: network, name: "bob@b",
            faults: FaultPlan(dropRate: 0.3, duplicateRate: 0.3, reorderRate: 0.3, seed: seed))
        let result = try await tickCounter(on: a, watchedBy: b)
        #expect(result.converged)
        #expect(b.nearby.first?.record.revision == result.activity.revision)
        #expect(result.seen == result.seen.sorted(), "revisions seen out of order: \(result.seen)")
        #expect(b.statistics.duplicate > 0, "duplicates should have been dropped as duplicates")
        await a.shutdown()
        await b.shutdown()
    }

    @Test("An activity not heard for forgetAfter is forgotten, in virtual time")
    func expiry() async throws {
        let network = InMemoryNetwork()
        let clock = ManualClock()
        let a = makeCenter(on: network, name: "alice@a", clock: clock) { $0.repeatInterval = .seconds(60) }
        let b = makeCenter(on: network, name: "bob@b", clock: clock) { $0.forgetAfter = .milliseconds(300) }
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 1]
        try activity.becomeCurrent()
        #expect(await waitUntil { b.nearby.count == 1 })
        #expect(b.nearby.first?.lastHeard == clock.date)
        clock.advance(by: .milliseconds(299))
        #expect(await waitUntil(timeout: .milliseconds(50)) { b.nearby.isEmpty } == false, "forgotten too early")
        clock.advance(by: .milliseconds(1))
        #expect(await waitUntil { b.nearby.isEmpty })
        await a.shutdown()
        await b.shutdown()
    }

    @Test("An orderly exit sends WITHDRAW, and peers forget the activity at once")
    func withdrawOnShutdown() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "alice@a") { $0.repeatInterval = .seconds(60) }
        // Forgetting by silence would take a minute, so only WITHDRAW can empty the list in time.
        let b = makeCenter(on: network, name: "bob@b") { $0.forgetAfter = .seconds(60) }
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 2]
        try activity.becomeCurrent()
        #expect(await waitUntil { b.nearby.count == 1 })
        await a.shutdown()
        #expect(await waitUntil { b.nearby.isEmpty })
        await b.shutdown()
    }

    @Test("A QUERY is answered with the current ANNOUNCE")
    func queryIsAnswered() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "alice@a") { $0.repeatInterval = .seconds(60) }
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": 9]
        try activity.becomeCurrent()
        #expect(await waitUntil { a.lastPublished != nil })
        // B joins late; no repeat will come for a minute, so only the answer to its QUERY can bring it.
        let b = makeCenter(on: network, name: "bob@b")
        let found = await b.findNearby(type: "dev.baton.counter", timeout: .seconds(60))
        #expect(found?.record.userInfo["count"] == 9)
        let other = await b.findNearby(type: "dev.baton.editing", timeout: .milliseconds(100))
        #expect(other == nil)
        await a.shutdown()
        await b.shutdown()
    }
}
