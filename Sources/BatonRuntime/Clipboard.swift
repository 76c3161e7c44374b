/// Where the lines Ctrl-K cut are kept, so that they follow the person to the group's other
/// machines: in `baton`, a key of the key-value store (`StoreClipboard` in `BatonCommands`).
/// The runtime knows only this, not the store.
@MainActor
public protocol Clipboard: AnyObject {
    /// The lines kept, when there are any (nil when nothing or something else is kept).
    func lines() -> [String]?
    /// Keeps `lines`, replacing what was kept.
    func keep(_ lines: [String]) throws
    /// One element each time the kept lines change, here or on another machine.
    func changes() -> AsyncStream<Void>
}
