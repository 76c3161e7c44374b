import Synchronization

/// One value worked out for one key, shared by copies of a buffer: its joined text for a
/// version (`TextCache`), and the cursor's display columns for a version and a cursor (a key's
/// update, keeping the cursor in view, and its frame both ask, and each would walk the cursor's
/// line). A version names one text, so the key names one value.
final class KeptValue<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let kept = Mutex<(key: Key, value: Value)?>(nil)

    func value(for key: Key) -> Value? {
        kept.withLock { $0?.key == key ? $0?.value : nil }
    }

    func keep(_ value: Value, for key: Key) {
        kept.withLock { $0 = (key, value) }
    }
}

/// The joined text of one buffer version.
typealias TextCache = KeptValue<UInt64, String>

/// The cursor's display columns (`TextBuffer.cursorColumns`) for one version and cursor.
typealias CursorColumnsCache = KeptValue<CursorColumnsCacheKey, CursorColumnsCacheValue>

struct CursorColumnsCacheKey: Equatable, Sendable {
    let version: UInt64
    let cursor: TextPosition
}

struct CursorColumnsCacheValue: Sendable {
    let start: Int
    let width: Int
}
