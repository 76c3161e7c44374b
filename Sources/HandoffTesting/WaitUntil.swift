/// Polls `condition` until it holds or `timeout` passes; true when it held. For tests of
/// programs built on Handoff, which wait for what a center or a program did on the main actor
/// instead of sleeping for it.
@MainActor
public func waitUntil(timeout: Duration = .seconds(20), _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))  // wait-ok: polls a condition until its deadline
    }
    return true
}
