import Foundation
import HandoffTesting

/// Moves `clock` to the earliest deadline anyone sleeps until, then waits (in real time, with
/// a deadline) until the woken tasks have run and set their next timer. False when nobody sleeps.
@MainActor
func step(_ clock: ManualClock) async -> Bool {
    guard let next = clock.nextDeadline else { return false }
    clock.advance(to: next)
    // Generous: on a loaded machine the timer task may take seconds to run; it returns at once when it has.
    return await waitUntil(timeout: .seconds(30)) { clock.nextDeadline.map { $0 > clock.now } ?? false }
}
