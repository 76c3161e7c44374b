import Foundation

/// The center's one timer, for the earliest of the core's deadline and the lazy intake.
extension ActivityCenter {
    /// Keeps one timer for the earliest of the core's deadline and the lazy intake.
    func reschedule() {
        guard !isShutDown else { return }
        guard let next = [core.nextDeadline, absorbDue].compactMap({ $0 }).min() else { return }
        // A timer that fires no later stays: on firing it finds what is due and sets the next.
        if let scheduled = timerDeadline, scheduled <= next { return }
        timer?.cancel()
        timerGeneration += 1
        let generation = timerGeneration
        timerDeadline = next
        let clock = clock
        timer = Task { [weak self] in
            do { try await clock.sleep(untilDate: next) } catch { return }
            guard let self, self.timerGeneration == generation else { return }
            self.timer = nil
            self.timerDeadline = nil
            self.fire()
        }
    }

    /// The timer fired: take in what arrived (repeats still queued may keep an activity
    /// alive), then let the core do what is due.
    func fire() {
        let now = clock.date
        if let due = absorbDue, due <= now { absorbReceived() }
        perform(core.tick(now: now))
        reschedule()
    }
}
