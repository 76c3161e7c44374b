import Foundation
import HandoffTesting

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

/// Moves `clock` to the earliest deadline anyone sleeps until, then waits (in real time, with
/// a deadline) until the woken tasks have run and set their next timer. False when nobody sleeps.
@MainActor
func step(_ clock: ManualClock) async -> Bool {
    guard let next = clock.nextDeadline else { return false }
    clock.advance(to: next)
    return await waitUntil(timeout: .seconds(5)) { clock.nextDeadline.map { $0 > clock.now } ?? false }
}
