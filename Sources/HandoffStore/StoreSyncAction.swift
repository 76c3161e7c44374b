import FoundationEssentials
import HandoffWire

/// What `StoreSyncCore` asks its runner to do. The runner carries them out in order; one whose
/// outcome the core needs (`take`, `fetch`, `open`) is answered by calling the core back.
package enum StoreSyncAction: Equatable, Sendable {
    /// Seal and send this STORE.
    case send(StoreMessage)
    /// Keep `entries` as the store state that `send` describes and send it; when no state can be
    /// kept (no state stream, or too large), send `otherwise` instead.
    case sendState(StateSend)
    /// Open the store (made empty when it has no file), then call `opened`; nothing when it
    /// cannot be opened.
    case open(String)
    /// Take a peer's entries into the store, then call `taken` (with nil when the store is not
    /// held).
    case take(TakeRequest)
    /// Fetch a store state over the state stream, then call `fetched` (or `fetchAbandoned` when
    /// the store is not held).
    case fetch(FetchRequest)
    /// The store was in step with a peer now: note it (`lastSync`).
    case synced(store: String)
    /// The wait with this id is over: true when what it waited for happened.
    case resume(StoreSyncCore.WaitID, Bool)
    /// Take what other programs of this machine wrote to the stores' files and tell the core
    /// (`wrote`); with `openNew`, open stores another program made since.
    case checkFiles(openNew: Bool)

    /// Entries going as one store state.
    package struct StateSend: Equatable, Sendable {
        package let store: String
        /// The store state's number, the sender's count of its store states.
        package let revision: Int
        package let entries: [StoreEntry]
        /// The digests the STORE that describes it carries.
        package let digests: StoreDigests
        /// The datagrams that go instead when the state cannot be kept.
        package let otherwise: [StoreMessage]
        /// Whether an entry does not fit a datagram alone: without the state, it is not sent.
        package let leavesOut: Bool
    }

    /// Entries heard, to take.
    package struct TakeRequest: Equatable, Sendable {
        package let store: String
        package let entries: [StoreEntry]
        /// The sender's digests, compared once the entries are taken.
        package let digests: StoreDigests
        /// Whether the sender was heard for the first time.
        package let newSender: Bool
        package let sender: SenderID
        /// Whether what changes is told as `initialSync` (else `peerChange`).
        package let initial: Bool
    }

    /// A store state to fetch.
    package struct FetchRequest: Equatable, Sendable {
        package let store: String
        package let state: StoreState
        /// The digests the STORE carried, compared once the entries are taken.
        package let digests: StoreDigests
        package let sender: SenderID
        /// The datagram's source, where the state is served.
        package let host: String
    }
}
