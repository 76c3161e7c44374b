import Crypto
import FoundationEssentials
import Synchronization

/// Each version 3 sender's AEAD key: HKDF-SHA256(IKM = the group key, salt = `baton-handoff`,
/// info = `v3 datagram` ‖ sender id, 32 bytes) (docs/PROTOCOL.md, section 3, "Sender keys").
///
/// A receiver opens every datagram with its sender's key, so the keys are kept: HKDF runs once
/// per (group key, sender id), not once per datagram. At most `capacity` keys are kept; when a
/// new one comes with the cache full, the quarter used least recently is forgotten (and worked
/// out again if its sender speaks again), so a flood of made-up sender ids costs HKDF each and
/// memory for `capacity` only.
public final class SenderKeys: Sendable {
    public static let defaultCapacity = 1_024
    static let info: [UInt8] = Array("v3 datagram".utf8)

    public let capacity: Int

    private struct Entry {
        var key: [UInt8]
        var used: UInt64
    }

    private struct State {
        var entries: [Slot: Entry] = [:]
        var clock: UInt64 = 0
        var derivations = 0
    }

    private struct Slot: Hashable {
        let keyID: KeyID
        let sender: SenderID
    }

    private let state = Mutex(State())

    public init(capacity: Int = SenderKeys.defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The sender key of `sender` under `groupKey`, with the key id `keyID` of that group key.
    public func key(for sender: SenderID, groupKey: GroupKey, keyID: KeyID) -> [UInt8] {
        let slot = Slot(keyID: keyID, sender: sender)
        if let hit = state.withLock({ s -> [UInt8]? in
            s.clock += 1
            guard let entry = s.entries[slot] else { return nil }
            s.entries[slot]?.used = s.clock
            return entry.key
        }) {
            return hit
        }
        let key = Self.derive(sender: sender, groupKey: groupKey)
        state.withLock { s in
            s.derivations += 1
            if s.entries.count >= capacity {
                let drop = max(1, capacity / 4)
                for (old, _) in s.entries.sorted(by: { $0.value.used < $1.value.used }).prefix(drop) {
                    s.entries[old] = nil
                }
            }
            s.clock += 1
            s.entries[slot] = Entry(key: key, used: s.clock)
        }
        return key
    }

    /// The sender key without a cache.
    public static func derive(sender: SenderID, groupKey: GroupKey) -> [UInt8] {
        WireHKDF.derive(groupKey.bytes, info: info + sender.bytes)
    }

    /// How many keys are kept now (at most `capacity`).
    public var count: Int { state.withLock { $0.entries.count } }

    /// How many times HKDF ran since this cache was made.
    public var derivations: Int { state.withLock { $0.derivations } }
}
