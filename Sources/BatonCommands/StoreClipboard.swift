import BatonApp
import BatonRuntime
import HandoffStore
import PropertyList

/// The editor's clipboard as one key of a key-value store: an array of strings, which the
/// store's sync carries to the group's other machines.
@MainActor
public final class StoreClipboard: Clipboard {
    /// The key of the clipboard in its store.
    public static let key = "clipboard"
    public let store: KeyValueStore

    public init(store: KeyValueStore) {
        self.store = store
    }

    /// Whole lines are an array of strings (what every version of Baton keeps); a selection's
    /// text is one string.
    public func clip() -> Clip? {
        if let text = store.string(forKey: Self.key) { return .text(text) }
        guard let array = store.array(forKey: Self.key) else { return nil }
        let lines = array.compactMap(\.stringValue)
        return lines.count == array.count ? .lines(lines) : nil
    }

    public func keep(_ clip: Clip) throws {
        switch clip {
        case .lines(let lines): try store.set(.array(lines.map(PropertyListValue.string)), forKey: Self.key)
        case .text(let text): try store.set(.string(text), forKey: Self.key)
        }
    }

    public func changes() -> AsyncStream<Void> {
        let changes = store.changes()
        return AsyncStream { continuation in
            let task = Task { @MainActor in
                for await change in changes where change.keys.contains(Self.key) && change.reason != .quotaViolation {
                    continuation.yield()
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// The editor's display toggles as one key of a key-value store (`editorDisplay`: a
/// dictionary of `lineNumbers`, `softWrap`, `constantShow` and `mouse`, booleans), so the next
/// session, here or on another machine of the group, shows text the same way.
@MainActor
public final class StoreDisplayPreference: DisplayPreference {
    /// The key of the toggles in their store.
    public static let key = "editorDisplay"
    public let store: KeyValueStore

    public init(store: KeyValueStore) {
        self.store = store
    }

    public func display() -> EditorDisplay? {
        guard let toggles = store.dictionary(forKey: Self.key) else { return nil }
        return EditorDisplay(
            lineNumbers: toggles["lineNumbers"]?.boolValue ?? false, softWrap: toggles["softWrap"]?.boolValue ?? false,
            constantShow: toggles["constantShow"]?.boolValue ?? false, mouse: toggles["mouse"]?.boolValue ?? false)
    }

    public func keep(_ display: EditorDisplay) throws {
        try store.set(
            .dictionary([
                "lineNumbers": .boolean(display.lineNumbers), "softWrap": .boolean(display.softWrap),
                "constantShow": .boolean(display.constantShow), "mouse": .boolean(display.mouse),
            ]),
            forKey: Self.key)
    }
}
