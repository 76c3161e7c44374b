import BatonApp

/// Where the lines Ctrl-K cut are kept, so that they follow the person to the group's other
/// machines: in `baton`, a key of the key-value store (`StoreClipboard` in `BatonCommands`).
/// The runtime knows only this, not the store.
@MainActor
public protocol Clipboard: AnyObject {
    /// What is kept, when there is anything (nil when nothing or something else is kept).
    func clip() -> Clip?
    /// Keeps `clip`, replacing what was kept.
    func keep(_ clip: Clip) throws
    /// One element each time the kept lines change, here or on another machine.
    func changes() -> AsyncStream<Void>
}

/// Where this person's choice of how the editor shows text (line numbers, soft wrap) is kept
/// for the next session: in `baton`, a key of the key-value store (`StoreDisplayPreference`).
@MainActor
public protocol DisplayPreference: AnyObject {
    /// The choice kept, if any.
    func display() -> EditorDisplay?
    /// Keeps `display`, replacing what was kept.
    func keep(_ display: EditorDisplay) throws
}
