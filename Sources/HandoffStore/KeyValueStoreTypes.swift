import FoundationEssentials
import HandoffWire
import PropertyList

/// What a store does with the loser of two writes that conflict (docs/PROTOCOL.md, section 18):
/// the same on every device that shares the store.
public enum ConflictPolicy: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The greater version wins; the loser is gone.
    case newest
    /// A value this device wrote that lost is written again, after the winner: the group ends
    /// with this device's value.
    case keepLocal = "keep-local"
    /// The greater version wins, and the losing value is kept under `KEY.conflict.DEVICE`.
    case keepBoth = "keep-both"
    /// The program decides: keep both's result at once, then a resolver (`KeyValueStore.resolver`)
    /// given the winner, the loser and the value both replaced returns the value to keep, written
    /// as a new version everywhere. Done by the device that wrote the loser.
    case resolve

    public var description: String { rawValue }
}

/// Keys that changed in a store other than by its own `set` and `removeObject`, and why.
public struct KeyValueStoreChange: Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, Equatable, CaseIterable {
        /// A peer's write was taken.
        case peerChange
        /// Taken in the first exchange with peers after start: what changed while away.
        case initialSync
        /// A peer's write was refused: taking it would break a limit of this store.
        case quotaViolation
        /// Two writes conflicted; the keys named hold the winner (and, keeping both, a
        /// `KEY.conflict.DEVICE` key the loser).
        case conflict
        /// Under `resolve`: the resolver's answer was written as the key's new value (and keep
        /// both's `KEY.conflict.DEVICE` key removed).
        case resolved
        /// Under `resolve`: the resolver gave no answer (it failed, threw or was too slow, or
        /// there is none); keep both's result stays. `note` says why.
        case unresolved
    }

    public let reason: Reason
    /// The keys, sorted.
    public let keys: [String]
    /// Why, for `unresolved`.
    public let note: String?

    public init(reason: Reason, keys: [String], note: String? = nil) {
        self.reason = reason
        self.keys = keys.sorted()
        self.note = note
    }

    public var description: String {
        "\(reason.rawValue): \(keys.joined(separator: ", "))" + (note.map { " (\($0))" } ?? "")
    }
}

/// A conflict a resolver settles (`ConflictPolicy.resolve`): for `key`, the winning and the losing
/// value and the value both writers replaced, their common ancestor (nil for a removal, or when
/// it is not known).
public struct KeyValueConflict: Sendable, Equatable {
    public let key: String
    public let winner: PropertyListValue?
    public let loser: PropertyListValue?
    public let ancestor: PropertyListValue?

    public init(key: String, winner: PropertyListValue?, loser: PropertyListValue?, ancestor: PropertyListValue?) {
        self.key = key
        self.winner = winner
        self.loser = loser
        self.ancestor = ancestor
    }
}

/// Apple's limits for one store (docs/PROTOCOL.md, section 18).
public struct KeyValueStoreLimits: Sendable, Equatable {
    /// Keys with a value, at most.
    public var keys = 1_024
    /// A key's UTF-8 bytes, at most.
    public var keyBytes = 64
    /// Keys and values as the canonical writer encodes them, at most.
    public var totalBytes = 1_048_576

    public init() {}
}

/// Why a write to a store failed. Nothing stored changes when one does.
public enum KeyValueStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key is empty or over 64 UTF-8 bytes.
    case invalidKey(bytes: Int, limit: Int)
    /// A new key past the store's 1,024.
    case tooManyKeys(limit: Int)
    /// The store would hold `bytes`, past its limit.
    case storeFull(bytes: Int, limit: Int)
    /// The entry's STORE datagram alone would be `bytes`, past the datagram limit.
    case entryTooLarge(bytes: Int, limit: Int)
    /// The store's file could not be written.
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidKey(let bytes, let limit):
            bytes == 0
                ? "A key cannot be empty."
                : "The key is \(bytes) bytes in UTF-8; a key is at most \(limit)."
        case .tooManyKeys(let limit):
            "The store already holds \(limit) keys, its limit: remove one first (baton kv rm KEY)."
        case .storeFull(let bytes, let limit):
            "The store would hold \(bytes) bytes of keys and values, over its limit of \(limit) (1 MB): remove keys first."
        case .entryTooLarge(let bytes, let limit):
            "The value is too large to send to peers: its datagram would be \(bytes) bytes, over the limit of \(limit). "
                + "Store a smaller value (about 850 bytes at the default --max-datagram 1200)."
        case .cannotWrite(let path, let reason):
            "Cannot write the store \(path): \(reason)."
        }
    }
}

/// The program's answer to a conflict: the value to keep (nil: remove the key). Throwing, or
/// taking longer than `KeyValueStore.resolverTimeout`, is no answer: keep both's result stays.
public typealias KeyValueResolver = @Sendable (KeyValueConflict) async throws -> PropertyListValue?
