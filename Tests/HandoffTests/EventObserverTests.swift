import Testing
@testable import Handoff
import HandoffTesting

/// A center's events heard by an observer: each as it is emitted, on the main actor, the same
/// ones in the same order as a stream gets them; none after shutdown.
@MainActor
@Suite("Observing a center's events")
struct EventObserverTests {
    final class Heard {
        var events: [ActivityCenter.Event] = []
    }

    @Test("An observer hears what a stream hears, in the same order, as it is emitted; shutdown lets it go")
    func sameAsTheStream() async throws {
        let network = InMemoryNetwork()
        let a = makeCenter(on: network, name: "a")
        let observed = Heard()
        let streamed = Heard()
        a.observeEvents { observed.events.append($0) }
        let events = a.events()
        let watcher = Task { @MainActor in
            for await event in events { streamed.events.append(event) }
        }
        defer { watcher.cancel() }
        let activity = UserActivity(activityType: "dev.baton.counter", center: a)
        activity.userInfo = ["count": "five"]
        try activity.becomeCurrent()
        #expect(await waitUntil { observed.events.contains { if case .saveFailed = $0 { true } else { false } } })
        activity.userInfo = ["count": 5]
        #expect(await waitUntil { observed.events.contains { if case .published = $0 { true } else { false } } })
        #expect(await waitUntil { streamed.events.count >= observed.events.count })
        #expect(streamed.events == observed.events)
        #expect(a.observers.count == 1)
        await a.shutdown()
        #expect(a.observers.isEmpty, "shutdown lets the observers go")
        a.observeEvents { observed.events.append($0) }
        #expect(a.observers.isEmpty, "an observer after shutdown is not kept")
    }
}
