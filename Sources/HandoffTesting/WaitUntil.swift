/// Polls `condition` until it holds or `timeout` passes; true when it held. For tests of
/// programs built on Handoff, which wait for what a center or a program did on the main actor
/// instead of sleeping for it.
///
/// The first looks come 2 ms apart and the later ones back off to 25 ms: the unit run starts
/// every test at once on two cores, and a hundred tests each waking the main actor 500 times a
/// second starved the very work they waited for (seen on a slower machine, where tests timed out
/// at 20 s). The default timeout is 60 s for the same reason. A condition is seen at most 25 ms
/// after it comes to hold, and a failing wait is the only one that lasts the whole timeout.
@MainActor
public func waitUntil(timeout: Duration = .seconds(60), _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    var pause = Duration.milliseconds(2)
    while !condition() {
        let now = ContinuousClock.now
        if now >= deadline { return false }
        try? await Task.sleep(for: min(pause, deadline - now))  // wait-ok: polls a condition until its deadline
        pause = min(pause * 2, .milliseconds(25))
    }
    return true
}
