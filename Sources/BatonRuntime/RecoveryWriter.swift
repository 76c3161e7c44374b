import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes and removes recovery copies in the order they were asked for, from any thread: a
/// copy of a 16 MB buffer takes its JSON encoding and an fsync, so the program writes it off
/// the main actor, and a signal's write or a removal that comes meanwhile must not be undone
/// by an older write landing after it.
///
/// Each request carries a generation (the program numbers them as it makes them); a write or
/// removal older than the newest one done is skipped. Requests run one at a time.
final class RecoveryWriter: Sendable {
    private let newest = Mutex<UInt64>(0)

    /// Writes `copy` unless a newer request was done; returns whether it wrote.
    func write(_ copy: RecoveryStore.Copy, to store: RecoveryStore, generation: UInt64) throws -> Bool {
        try newest.withLock { newest throws in
            guard generation > newest else { return false }
            newest = generation
            try store.write(copy)
            return true
        }
    }

    /// Removes the copy at `location` unless a newer request was done.
    func remove(_ location: String, generation: UInt64) {
        newest.withLock { newest in
            guard generation > newest else { return }
            newest = generation
            _ = unlink(location)
        }
    }
}
