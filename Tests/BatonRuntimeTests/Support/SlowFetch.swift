import Handoff

/// A fetch that stands in for the center's while a test says how it goes: it reports what
/// the test reports, and ends when the test fails it or when its task is cancelled.
@MainActor
final class SlowFetch {
    private(set) var started = false
    private(set) var sawCancellation = false
    private var progress: (@MainActor (TransferProgress) -> Void)?
    private var entry: NearbyActivity?
    private var end: AsyncStream<HandoffError>.Continuation?

    /// What the Program calls in place of `center.continueActivity(_:progress:)`.
    func run(_ entry: NearbyActivity, _ progress: @escaping @MainActor (TransferProgress) -> Void) async throws -> UserActivity {
        started = true
        self.entry = entry
        self.progress = progress
        let (ends, end) = AsyncStream<HandoffError>.makeStream()
        self.end = end
        // The stream's iterator returns nil when the task is cancelled.
        for await error in ends { throw error }
        sawCancellation = Task.isCancelled
        throw HandoffError.cancelled
    }

    /// Reports progress as the center would.
    func report(received: Int, total: Int, after elapsed: Duration) {
        guard let entry, let progress else { return }
        progress(TransferProgress(
            activityID: entry.id, peerName: entry.record.peer.name, received: received, total: total, elapsed: elapsed))
    }

    /// Ends the fetch with `error`.
    func fail(_ error: HandoffError) {
        end?.yield(error)
    }
}
