import Synchronization

/// The states a source serves over the state stream: for each of its activities, the state
/// encoding of the last two revisions it published with an OFFER (the current one, and the
/// one before so that a fetch in flight survives a new save).
///
/// Thread-safe: the activity center puts states on its own actor while the stream server
/// reads them on its event loop. The bytes are shared, not copied, with whoever holds them.
public final class StateShelf: Sendable {
    /// The most activities kept; putting a state for another one drops the one put least recently.
    public static let maximumActivities = 16
    /// Revisions kept per activity.
    public static let revisionsPerActivity = 2

    struct Kept {
        var revision: Int
        var digest: [UInt8]
        var bytes: [UInt8]
    }

    struct Shelf {
        /// Activity ids, the one put least recently first.
        var order: [String] = []
        /// Per activity, its kept revisions, the one put least recently first.
        var states: [String: [Kept]] = [:]
    }

    private let shelf = Mutex(Shelf())

    public init() {}

    /// Keeps `bytes` as the state of `activityID` at `revision`, whose SHA-256 is `digest`.
    /// Putting a revision already kept replaces it; beyond two revisions, the one put first
    /// goes; beyond 16 activities, the activity put least recently goes.
    public func put(activityID: String, revision: Int, digest: [UInt8], bytes: [UInt8]) {
        let kept = Kept(revision: revision, digest: digest, bytes: bytes)
        // What is dropped is released after the lock, not under it.
        let dropped: [Kept] = shelf.withLock { shelf in
            var dropped: [Kept] = []
            var revisions = shelf.states[activityID] ?? []
            if let same = revisions.firstIndex(where: { $0.revision == revision }) {
                dropped.append(revisions.remove(at: same))
            }
            revisions.append(kept)
            if revisions.count > Self.revisionsPerActivity {
                dropped.append(contentsOf: revisions.prefix(revisions.count - Self.revisionsPerActivity))
                revisions.removeFirst(revisions.count - Self.revisionsPerActivity)
            }
            shelf.states[activityID] = revisions
            shelf.order.removeAll { $0 == activityID }
            shelf.order.append(activityID)
            while shelf.order.count > Self.maximumActivities {
                let oldest = shelf.order.removeFirst()
                dropped.append(contentsOf: shelf.states.removeValue(forKey: oldest) ?? [])
            }
            return dropped
        }
        _ = dropped
    }

    /// The kept state of `activityID` at `revision` whose digest is `digest`, or nil.
    public func state(activityID: String, revision: Int, digest: some Collection<UInt8>) -> [UInt8]? {
        shelf.withLock { shelf in
            shelf.states[activityID]?.last { $0.revision == revision && $0.digest.elementsEqual(digest) }?.bytes
        }
    }

    /// Forgets every state of `activityID` (it was invalidated or is no longer offered).
    public func remove(activityID: String) {
        let dropped = shelf.withLock { shelf in
            shelf.order.removeAll { $0 == activityID }
            return shelf.states.removeValue(forKey: activityID)
        }
        _ = dropped
    }

    /// Forgets everything (the program shuts down).
    public func removeAll() {
        let dropped = shelf.withLock { shelf in
            defer { shelf = Shelf() }
            return shelf.states
        }
        _ = dropped
    }

    /// The activity ids with kept states, the one put least recently first.
    public var activityIDs: [String] { shelf.withLock { $0.order } }

    /// The revisions kept for `activityID`, the one put first first.
    public func revisions(of activityID: String) -> [Int] {
        shelf.withLock { $0.states[activityID]?.map(\.revision) ?? [] }
    }

    /// Bytes of state kept in all.
    public var byteCount: Int {
        shelf.withLock { $0.states.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.bytes.count } } }
    }
}
