import Synchronization

/// The joined text of one buffer version, shared by copies of the buffer.
final class TextCache: Sendable {
    private let kept = Mutex<(version: UInt64, text: String)?>(nil)

    func text(for version: UInt64) -> String? {
        kept.withLock { $0?.version == version ? $0?.text : nil }
    }

    func keep(_ text: String, for version: UInt64) {
        kept.withLock { $0 = (version, text) }
    }
}

/// The cursor's display columns (`TextBuffer.cursorColumns`) for one version and cursor, shared
/// by copies of the buffer: a key's update (keeping the cursor in view) and its frame both ask,
/// and each would walk the cursor's line. A version names one text, so the pair names one answer.
final class CursorColumnsCache: Sendable {
    private let kept = Mutex<(version: UInt64, cursor: TextPosition, start: Int, width: Int)?>(nil)

    func columns(version: UInt64, cursor: TextPosition) -> (start: Int, width: Int)? {
        kept.withLock { kept in
            guard let kept, kept.version == version, kept.cursor == cursor else { return nil }
            return (kept.start, kept.width)
        }
    }

    func keep(_ columns: (start: Int, width: Int), version: UInt64, cursor: TextPosition) {
        kept.withLock { $0 = (version, cursor, columns.start, columns.width) }
    }
}
