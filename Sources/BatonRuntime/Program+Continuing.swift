import BatonApp
import Handoff
import HandoffWire

/// Continuing from the nearby list: the fetch of a large record runs in a task the Program
/// keeps, so Esc can cancel it while keys, the network and the clock carry on.
extension Program {
    /// Fetches and continues a nearby activity, reporting progress; what the center's
    /// `continueActivity(_:progress:)` does, and what tests replace.
    typealias Fetch = @MainActor (
        _ entry: NearbyActivity, _ progress: @escaping @MainActor (TransferProgress) -> Void
    ) async throws -> UserActivity

    /// A continue under way.
    struct ContinueRun {
        /// Which continue this is (`continuesStarted` when it began).
        var serial: Int
        var id: String
        /// Runs the fetch; cancelling it stops the fetch with nothing restored.
        var task: Task<Void, Never>
        /// Says `.continueWaited` once the continue has taken `BatonApp.continueOverlayDelay`.
        var waiter: Task<Void, Never>
        /// When, in the fetch's time, progress was last posted.
        var progressPostedAt: Duration?
        /// Set by `.cancelContinue`: how it ends is not reported, the model has said it was cancelled.
        var cancelled = false
    }

    /// A fast fetch reports more often than anyone can read; progress is posted at most this
    /// often (the last report always is).
    static let progressInterval: Duration = .milliseconds(50)

    /// Starts continuing `entry` in a task. A success posts `.continued` from inside the
    /// fetch (restoreUserActivityState); a failure is posted here as `.continueFailed`, once:
    /// `didFailToContinue` stays quiet while a continue of ours runs.
    func startContinue(_ entry: NearbyActivity) {
        cancelContinue()
        continuesStarted += 1
        let serial = continuesStarted
        let id = entry.id
        let fetch = self.fetch ?? { [center] entry, progress in
            try await center.continueActivity(entry, progress: progress)
        }
        let report: @MainActor (TransferProgress) -> Void = { [weak self] progress in
            self?.post(progress, serial: serial)
        }
        let task = Task { [weak self, inbox, logger] in
            do {
                let activity = try await fetch(entry, report)
                logger.info("continued \(PeerText.visible(activity.activityType)) from \(PeerText.visible(activity.peer?.name ?? "?"))")
            } catch {
                let cancelled = Task.isCancelled || self?.continuing?.cancelled == true
                if cancelled {
                    logger.info("continue of \(PeerText.visible(id)) cancelled")
                } else {
                    logger.warning("continue of \(PeerText.visible(id)) failed: \(error)")
                    inbox.yield(.continueFailed((error as? HandoffError)?.description ?? "\(error)"))
                }
            }
            self?.continueEnded(serial: serial)
        }
        let waiter = Task { [inbox, clock] in
            try? await clock.sleep(for: BatonApp.continueOverlayDelay)
            guard !Task.isCancelled else { return }
            inbox.yield(.continueWaited(id: id, elapsed: BatonApp.continueOverlayDelay))
        }
        continuing = ContinueRun(serial: serial, id: id, task: task, waiter: waiter)
    }

    /// Stops the continue under way, if any; its task ends with nothing restored and nothing posted.
    func cancelContinue() {
        guard var run = continuing, !run.cancelled else { return }
        logger.info("cancelling the continue of \(PeerText.visible(run.id))")
        run.cancelled = true
        run.task.cancel()
        run.waiter.cancel()
        continuing = run
    }

    private func post(_ progress: TransferProgress, serial: Int) {
        guard var run = continuing, run.serial == serial, !run.cancelled else { return }
        let complete = progress.received >= progress.total
        if let last = run.progressPostedAt, progress.elapsed - last < Self.progressInterval, !complete { return }
        run.progressPostedAt = progress.elapsed
        continuing = run
        inbox.yield(.continueProgress(progress))
    }

    private func continueEnded(serial: Int) {
        guard let run = continuing, run.serial == serial else { return }
        run.waiter.cancel()
        continuing = nil
    }
}
