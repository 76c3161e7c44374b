/// Polls `condition` until it holds or `timeout` passes; true when it held.
@MainActor
func waitUntil(timeout: Duration = .seconds(20), _ condition: @MainActor () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(2))  // wait-ok: polls a condition until its deadline
    }
    return true
}
