import BatonApp
import Handoff

/// Giving back the pages of the program's code when nobody has used it for a while
/// (`QuietPages`): the effect, and its one timer.
extension Program {
    /// The program did something for someone now: the pages are due `QuietPages.pause` later.
    func notePagesBusy() {
        guard giveBackPages != nil else { return }
        quietPages.busy(at: clock.now)
        // A timer that is set finds the later deadline when it fires, and waits again: one set
        // per key would cost every key a timer.
        quietTimer.schedule(quietPages.deadline)
    }

    /// The quiet timer fired: the pages are given back if nothing was done since, else it waits again.
    func quietDue() {
        guard !model.isQuitting else { return }
        if quietPages.takeDue(at: clock.now), let giveBack = giveBackPages {
            let bytes = giveBack()
            logger.debug("quiet: the pages of \(bytes / 1_048_576) MB of read-only mappings given back")
        } else {
            quietTimer.schedule(quietPages.deadline)
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
