import Crypto
import Dispatch
import Synchronization

/// The states a source serves over the state stream, each under its `Key`: for each of its
/// activities, the state encoding of the last two revisions it published with an OFFER (the
/// current one, and the one before so that a fetch in flight survives a new save, for as long as
/// a fetch may ask for it: `trimSuperseded`), and for each key-value store, its last two store
/// states.
///
/// A state is kept as its bytes, or as a way to make them again (`put(…remake:)`): the record
/// it encodes, whose text the program holds anyway, costs far less than its encoding (a binary
/// plist holds a mixed-script text as UTF-16), and the canonical writer makes the same bytes
/// again, which are checked against the digest before they are served.
///
/// Thread-safe: the activity center puts states on its own actor while the stream server
/// reads them on its event loop. The bytes are shared, not copied, with whoever holds them.
public final class StateShelf: Sendable {
    /// The most keys kept (activities and stores together); putting a state for another one
    /// drops the one put least recently.
    public static let maximumActivities = 16
    /// Revisions kept per key.
    public static let revisionsPerActivity = 2

    /// What a kept state belongs to. A GET names it by one string (docs/PROTOCOL.md sections 10
    /// and 18): an activity by its id, a store state by `store:` and the store's name. An
    /// activity id is a UUID, so the two never meet.
    public enum Key: Hashable, Sendable, CustomStringConvertible {
        case activity(String)
        case storeState(store: String)

        /// What a GET for a store state starts with.
        public static let storeStatePrefix = "store:"

        /// The state a GET names.
        public init(requested name: String) {
            if name.hasPrefix(Self.storeStatePrefix) {
                self = .storeState(store: String(name.dropFirst(Self.storeStatePrefix.count)))
            } else {
                self = .activity(name)
            }
        }

        /// The name a GET carries for it.
        public var requestedName: String {
            switch self {
            case .activity(let id): id
            case .storeState(let store): Self.storeStatePrefix + store
            }
        }

        public var description: String { requestedName }
    }

    struct Kept {
        var revision: Int
        var digest: [UInt8]
        /// The bytes, or nil when `remake` makes them when asked.
        var bytes: [UInt8]?
        var remake: (@Sendable () -> [UInt8])?
        /// Asked for (or superseded) since the last `trimSuperseded`: kept through the next.
        var askedSinceTrim = true
    }

    struct Shelf {
        /// Keys, the one put least recently first.
        var order: [Key] = []
        /// Per key, its kept revisions, the one put least recently first.
        var states: [Key: [Kept]] = [:]
        /// A `trimSuperseded` is due (`armTrim`), and how many ran.
        var trimArmed = false
        var trims = 0
    }

    private let shelf = Mutex(Shelf())
    /// Where this shelf's servers hand connections that ask for a continuation stream.
    public let continuationDoor = ContinuationDoor()

    public init() {}

    /// Keeps `bytes` as the state of `key` at `revision`, whose SHA-256 is `digest`.
    /// Putting a revision already kept replaces it; beyond two revisions, the one put first
    /// goes; beyond 16 keys, the key put least recently goes.
    public func put(_ key: Key, revision: Int, digest: [UInt8], bytes: [UInt8]) {
        put(Kept(revision: revision, digest: digest, bytes: bytes, remake: nil), for: key)
    }

    /// `put(.activity(activityID), …)`.
    public func put(activityID: String, revision: Int, digest: [UInt8], bytes: [UInt8]) {
        put(.activity(activityID), revision: revision, digest: digest, bytes: bytes)
    }

    /// As `put(_:revision:digest:bytes:)`, keeping `remake` instead of the bytes: it
    /// is called (off the shelf's lock, on the reader's thread) each time the state is asked
    /// for, and what it makes is served only if its SHA-256 is `digest` (`state` checks it
    /// first; the stream server, given it by `servable`, while it seals the bytes, and it
    /// withholds the last DATA frame unless they match).
    public func put(_ key: Key, revision: Int, digest: [UInt8], remake: @escaping @Sendable () -> [UInt8]) {
        put(Kept(revision: revision, digest: digest, bytes: nil, remake: remake), for: key)
    }

    /// `put(.activity(activityID), …remake:)`.
    public func put(activityID: String, revision: Int, digest: [UInt8], remake: @escaping @Sendable () -> [UInt8]) {
        put(.activity(activityID), revision: revision, digest: digest, remake: remake)
    }

    private func put(_ kept: Kept, for key: Key) {
        let revision = kept.revision
        // What is dropped is released after the lock, not under it, and not on the caller's
        // thread: a dropped revision may be the last holder of a 16 MB text, whose release
        // (unmapping it) the main actor would otherwise do between two keys.
        let dropped: [Kept] = shelf.withLock { shelf in
            var dropped: [Kept] = []
            var revisions = shelf.states[key] ?? []
            if let same = revisions.firstIndex(where: { $0.revision == revision }) {
                dropped.append(revisions.remove(at: same))
            }
            // The one it supersedes is kept through the next trim at least.
            if !revisions.isEmpty { revisions[revisions.count - 1].askedSinceTrim = true }
            revisions.append(kept)
            if revisions.count > Self.revisionsPerActivity {
                dropped.append(contentsOf: revisions.prefix(revisions.count - Self.revisionsPerActivity))
                revisions.removeFirst(revisions.count - Self.revisionsPerActivity)
            }
            shelf.states[key] = revisions
            shelf.order.removeAll { $0 == key }
            shelf.order.append(key)
            while shelf.order.count > Self.maximumActivities {
                let oldest = shelf.order.removeFirst()
                dropped.append(contentsOf: shelf.states.removeValue(forKey: oldest) ?? [])
            }
            return dropped
        }
        Self.release(dropped)
    }

    /// Lets go of `kept` on a background queue (`letGoInBackground`).
    private static func release(_ kept: consuming [Kept]) {
        guard !kept.isEmpty else { return }
        letGoInBackground(kept)
    }

    /// The kept state of `key` at `revision` whose digest is `digest`, or nil (also
    /// when a state made again does not match its digest).
    public func state(_ key: Key, revision: Int, digest: some Collection<UInt8>) -> [UInt8]? {
        let kept = asked(key, revision: revision, digest: digest)
        guard let kept else { return nil }
        if let bytes = kept.bytes { return bytes }
        guard let bytes = kept.remake?(), Array(SHA256.hash(data: bytes)) == kept.digest else { return nil }
        return bytes
    }

    /// `state(.activity(activityID), …)`.
    public func state(activityID: String, revision: Int, digest: some Collection<UInt8>) -> [UInt8]? {
        state(.activity(activityID), revision: revision, digest: digest)
    }

    /// A kept state as the server serves it: the bytes, and whether they still have to be
    /// checked against the digest (a state made again), which the server does as it seals
    /// them rather than in a pass of its own before the first byte goes out.
    public struct Servable: Sendable {
        public var bytes: [UInt8]
        /// The digest to check `bytes` against, or nil when they were put as they are.
        public var unchecked: [UInt8]?
    }

    /// The kept state of `key` at `revision` whose digest is `digest`, made again if
    /// it was kept that way but not yet checked; nil when nothing is kept.
    public func servable(_ key: Key, revision: Int, digest: some Collection<UInt8>) -> Servable? {
        let kept = asked(key, revision: revision, digest: digest)
        guard let kept else { return nil }
        if let bytes = kept.bytes { return Servable(bytes: bytes, unchecked: nil) }
        guard let bytes = kept.remake?() else { return nil }
        return Servable(bytes: bytes, unchecked: kept.digest)
    }

    /// The kept state of `key` at `revision` with `digest`, marked as asked for.
    private func asked(_ key: Key, revision: Int, digest: some Collection<UInt8>) -> Kept? {
        shelf.withLock { shelf in
            guard let index = shelf.states[key]?.lastIndex(where: { $0.revision == revision && $0.digest.elementsEqual(digest) })
            else { return nil }
            shelf.states[key]?[index].askedSinceTrim = true
            return shelf.states[key]?[index]
        }
    }

    /// Forgets each activity's revision before its newest unless it was asked for, or
    /// superseded, since the last call; returns whether such a revision is still kept (call
    /// again later). Called every `supersededKeptFor`, the revision before the newest is kept
    /// at least that long after the newest was put, and for as long as a fetch asks for it
    /// at least that often (a resume after a drop asks again); a 16 MB text is not held twice
    /// for nobody. Store states keep their two.
    @discardableResult
    public func trimSuperseded() -> Bool {
        let (dropped, remaining): ([Kept], Bool) = shelf.withLock { shelf in
            shelf.trimArmed = false
            shelf.trims += 1
            var dropped: [Kept] = []
            var remaining = false
            for (key, revisions) in shelf.states where revisions.count > 1 {
                guard case .activity = key else { continue }
                var kept = revisions
                for index in kept.indices.dropLast().reversed() {
                    if kept[index].askedSinceTrim {
                        kept[index].askedSinceTrim = false
                        remaining = true
                    } else {
                        dropped.append(kept.remove(at: index))
                    }
                }
                shelf.states[key] = kept
            }
            return (dropped, remaining)
        }
        Self.release(dropped)
        return remaining
    }

    /// How often `trimSuperseded` is called while a revision before the newest is kept.
    public static let supersededKeptFor = Duration.seconds(10)

    /// How many times `trimSuperseded` ran (for tests).
    public var trimCount: Int { shelf.withLock { $0.trims } }

    /// Whether the caller should call `trimSuperseded` in `supersededKeptFor`: true once until
    /// that call, so that one caller's timer does it.
    public func armTrim() -> Bool {
        shelf.withLock { shelf in
            defer { shelf.trimArmed = true }
            return !shelf.trimArmed
        }
    }

    /// Forgets every state of `key` (it was invalidated or is no longer offered).
    public func remove(_ key: Key) {
        let dropped = shelf.withLock { shelf in
            shelf.order.removeAll { $0 == key }
            return shelf.states.removeValue(forKey: key)
        }
        _ = dropped
    }

    /// `remove(.activity(activityID))`.
    public func remove(activityID: String) {
        remove(.activity(activityID))
    }

    /// Forgets everything (the program shuts down).
    public func removeAll() {
        let dropped = shelf.withLock { shelf in
            defer { shelf = Shelf() }
            return shelf.states
        }
        _ = dropped
    }

    /// The keys with kept states, the one put least recently first.
    public var keys: [Key] { shelf.withLock { $0.order } }

    /// The activity ids with kept states, the one put least recently first.
    public var activityIDs: [String] {
        keys.compactMap { if case .activity(let id) = $0 { id } else { nil } }
    }

    /// The revisions kept for `key`, the one put first first.
    public func revisions(of key: Key) -> [Int] {
        shelf.withLock { $0.states[key]?.map(\.revision) ?? [] }
    }

    /// `revisions(of: .activity(activityID))`.
    public func revisions(of activityID: String) -> [Int] {
        revisions(of: .activity(activityID))
    }

    /// Bytes of state kept in all (a state kept as a way to make it counts none).
    public var byteCount: Int {
        shelf.withLock { $0.states.values.reduce(0) { $0 + $1.reduce(0) { $0 + ($1.bytes?.count ?? 0) } } }
    }
}
