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
