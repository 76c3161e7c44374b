import Foundation
@testable import Handoff
import HandoffTesting
@testable import HandoffWire

/// Records every hook call, in order, and plays the app's part in continues.
@MainActor
final class RecordingApp: UserActivityDelegate, UserActivityResponder, ApplicationDelegate {
    var log: [String] = []
    var restored: [UserActivity] = []
    var continuedBy: [PeerInfo] = []
    var failures: [HandoffError] = []
    var onWillSave: ((UserActivity) -> Void)?
    var onUpdate: ((UserActivity) -> Void)?
    var onDidUpdate: ((UserActivity) -> Void)?

    func userActivityWillSave(_ activity: UserActivity) {
        log.append("willSave")
        onWillSave?(activity)
    }
    func userActivityWasContinued(_ activity: UserActivity, by peer: PeerInfo) {
        log.append("wasContinued")
        continuedBy.append(peer)
    }
    func updateUserActivityState(_ activity: UserActivity) {
        log.append("updateState")
        onUpdate?(activity)
    }
    func restoreUserActivityState(_ activity: UserActivity) {
        log.append("restore")
        restored.append(activity)
    }
    func didUpdate(_ activity: UserActivity) {
        log.append("didUpdate")
        onDidUpdate?(activity)
    }
    func willContinue(activityType: String) -> Bool {
        log.append("willContinue")
        return true
    }
    func `continue`(_ activity: UserActivity, restorationHandler: ([any UserActivityResponder]) -> Void) -> Bool {
        log.append("continue")
        restorationHandler([self])
        return true
    }
    func didFailToContinue(activityType: String, error: HandoffError) {
        log.append("didFail")
        failures.append(error)
    }
}

/// A center on an in-memory network, with fast timings for tests.
@MainActor
func makeCenter(
    on network: InMemoryNetwork, name: String, faults: FaultPlan = .none,
    registry: ActivityTypeRegistry = Fixtures.registry, clock: any HandoffClock = SystemClock(),
    configure: (inout ActivityCenter.Configuration) -> Void = { _ in }
) -> ActivityCenter {
    var config = ActivityCenter.Configuration(
        peer: PeerInfo(name: name, host: "\(name).test", app: "baton-tests", appVersion: "0"))
    config.repeatInterval = .milliseconds(50)
    configure(&config)
    let center = ActivityCenter(
        registry: registry, membership: .sharedDevice(of: Fixtures.key), transport: network.makeTransport(faults: faults, name: name),
        configuration: config, clock: clock)
    center.start()
    return center
}

/// What `b` showed while `a` published a counter that changed `changes` times.
struct TickResult {
    let activity: UserActivity
    /// Revisions of `b`'s newest nearby record, at each change of its list, in order.
    let seen: [Int]
    /// Whether `b` came to hold the last count before the deadline.
    let converged: Bool
}

/// Makes `a` publish a counter and change it `changes` times, pacing now and then so saves
/// go out, and waits until `b` holds the last count.
@MainActor
func tickCounter(on a: ActivityCenter, watchedBy b: ActivityCenter, changes: Int = 60) async throws -> TickResult {
    var seen: [Int] = []
    let events = b.events()
    let watcher = Task { @MainActor in
        for await event in events where event == .nearbyChanged {
            if let record = b.nearby.first?.record { seen.append(record.revision) }
        }
    }
    defer { watcher.cancel() }
    let activity = UserActivity(activityType: "dev.baton.counter", center: a)
    activity.userInfo = ["count": 0]
    try activity.becomeCurrent()
    for i in 1...changes {
        activity.userInfo["count"] = .integer(i)
        await Task.yield()
        if i % 5 == 0 { _ = await waitUntil(timeout: .milliseconds(30)) { a.lastPublished?.userInfo["count"] == .integer(i) } }
    }
    let converged = await waitUntil { b.nearby.first?.record.userInfo["count"] == .integer(changes) }
    return TickResult(activity: activity, seen: seen, converged: converged)
}
