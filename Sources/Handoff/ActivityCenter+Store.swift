import FoundationEssentials
import HandoffWire

/// Key-value stores (docs/PROTOCOL.md, section 18), as `HandoffStore` reaches them: the
/// center's face of its `StoreService`.
extension ActivityCenter {
    /// Called with every STORE datagram accepted from a listed device, with its sender and the
    /// host it came from (`NearbyActivity.sourceHost`'s form), where its store state is fetched.
    /// The stores themselves live above the center (`HandoffStore`'s `StoreSync`).
    public var storeListener: (@MainActor (StoreMessage, SenderID, String?) -> Void)? {
        get { store.listener }
        set { store.listener = newValue }
    }

    /// Seals and sends a STORE datagram, numbered after everything sent before it; nothing
    /// before `start` or after `shutdown`. False when it was not sent.
    @discardableResult
    public func sendStore(_ message: StoreMessage) -> Bool {
        guard !isShutDown else { return false }
        return store.send(message)
    }

    /// Keeps store `store`'s state `revision`, made by `make` (the canonical plist of its
    /// entries: the same bytes each time), to serve, and says where it is; nil when the center
    /// runs without a state stream. The entries are kept, not the bytes: they are the store's
    /// own values, shared, where the bytes would be a copy.
    public func shelveStoreState(store name: String, revision: Int, make: @escaping @Sendable () -> [UInt8]) -> StoreState? {
        store.shelveState(store: name, revision: revision, make: make)
    }

    /// Fetches store `store`'s `state` from `sender`'s device at `host`, checked against its
    /// size and digest.
    public func fetchStoreState(_ state: StoreState, store name: String, from sender: SenderID, host: String)
        async throws(HandoffError) -> [UInt8]
    {
        try await store.fetchState(state, store: name, from: sender, host: host)
    }
}
