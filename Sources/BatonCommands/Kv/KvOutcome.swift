import HandoffStore
import HandoffWire

/// Why a `baton kv` command failed. `note` is what it says on standard error before it exits
/// with status 1; `.files` is said as the command's error instead (`Error: …`).
package enum KvFailure: Error, Equatable {
    /// A file of this machine cannot be used: the identity, or a store's file read without the
    /// network. The sentence says which and what to do.
    case files(String)
    /// The store cannot be opened on the network; what is wrong with its file was said already.
    case storeUnusable
    /// The store refused the write, past one of its limits; nothing changed.
    case refused(KeyValueStoreError)
    /// There is no such key, as far as `where` goes.
    case noSuchKey(key: String, store: String, where: Lookup)

    /// How far a command looked for a key before it said there is none.
    package enum Lookup: Equatable {
        /// This machine's copy only (`kv get --wait 0`).
        case here
        /// This machine's copy, and no peer said otherwise within the wait.
        case unanswered(Seconds)
        /// This machine's copy, in step with a peer's.
        case inStep
        /// As `inStep` or `unanswered`, for `kv rm`, which has nothing to remove.
        case toRemove
    }

    /// What the command says on standard error; nil for `.files`, which is the command's error,
    /// and `.storeUnusable`, said already.
    package var note: String? {
        switch self {
        case .files, .storeUnusable:
            return nil
        case .refused(let error):
            return error.description
        case .noSuchKey(let key, let store, let lookup):
            let unsure =
                switch lookup {
                case .here: " on this machine (--wait 0: peers were not asked)"
                case .unanswered(let wait): " on this machine; no peer answered within \(wait) to say otherwise"
                case .inStep: ""
                case .toRemove: ": nothing to remove"
                }
            return "No key \(KvText.quoted(key)) in the store \(KvText.quoted(store))\(unsure)."
        }
    }
}

/// What came of a write (`kv set`, `kv import`, `kv rm`) that the store took.
package enum KvDelivery: Equatable {
    /// A peer said it took the write.
    case taken
    /// Not waited for (`--wait 0`): the write went out.
    case sent
    /// No peer said it took the write within the wait; it goes out when one is heard.
    case notTaken
    /// The network could not be joined (`because`): the write is on this machine's disk only.
    case offline(because: String)

    /// What the command says on standard error; nil when all went as asked.
    package var note: String? {
        switch self {
        case .taken, .sent:
            nil
        case .notTaken:
            "Saved here; no peer has it yet: it goes out when one is heard (any running baton, monitor or kv watch of the group)."
        case .offline(let failure):
            "Saved here, but not sent: \(failure). It goes out when a Baton program of this machine (the app, "
                + "monitor or kv watch) is on the network with a peer."
        }
    }
}

/// Pieces of the sentences `baton kv` says.
package enum KvText {
    /// A key or store name to show in a sentence: visible, in quotes.
    package static func quoted(_ text: String) -> String { "'" + PeerText.visible(text) + "'" }

    /// `1 key`, `3 keys`.
    package static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
