import BatonApp
import Handoff

/// Giving back the pages of the program's code when nobody has used it for a while
/// (`QuietPages`): the effect, and its one timer.
extension Program {
    /// The program did something for someone now: the pages are due `QuietPages.pause` later.
    func notePagesBusy() {
        guard giveBackPages != nil else { return }
        quietPages.busy(at: clock.now)
        // A timer that is waiting finds the later deadline when it fires, and waits again:
        // cancelling and starting one per key would cost every key a task.
        if quietTimer == nil { armQuietTimer() }
    }

    private func armQuietTimer() {
        guard let deadline = quietPages.deadline else { return }
        let clock = clock
        quietTimer = Task { [weak self] in
            do { try await clock.sleep(until: deadline) } catch { return }
            guard let self, !Task.isCancelled else { return }
            self.quietTimer = nil
            guard !self.model.isQuitting else { return }
            if self.quietPages.takeDue(at: clock.now), let giveBack = self.giveBackPages {
                let bytes = giveBack()
                self.logger.debug("quiet: the pages of \(bytes / 1_048_576) MB of read-only mappings given back")
            } else {
                self.armQuietTimer()
            }
        }
    }

    func isKeyLike(_ message: AppMessage) -> Bool {
        switch message {
        case .key, .paste: true
        default: false
        }
    }

    /// Whether a message is the program doing something for someone (what makes it busy).
    func isBusyMessage(_ message: AppMessage) -> Bool {
        switch message {
        case .key, .paste, .mouse, .resize, .liveReceived, .liveOpened, .continued: true
        default: false
        }
    }
}
