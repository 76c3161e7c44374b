import Foundation
import HandoffTesting

/// Moves `clock` to the earliest deadline anyone sleeps until, then waits (in real time, with
/// a deadline) until the woken tasks have run and set their next timer. False when nobody sleeps.
@MainActor
func step(_ clock: ManualClock) async -> Bool {
    guard let next = clock.nextDeadline else { return false }
    clock.advance(to: next)
    return await waitUntil(timeout: .seconds(5)) { clock.nextDeadline.map { $0 > clock.now } ?? false }
}
