import BatonFiles
import BatonMembership
import FoundationEssentials
import Handoff
import HandoffStore
import HandoffWire
import PropertyList

/// This machine as `baton kv` sees it without the network: its stores' folder and the identity
/// that writes them, as `environment` places them (HOME, XDG_STATE_HOME, XDG_CONFIG_HOME).
@MainActor
package struct KvMachine: Sendable {
    package let environment: [String: String]

    nonisolated package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Where the stores live: `$XDG_STATE_HOME/baton/store`.
    package var folder: String { StoreFile.defaultFolder(environment: environment) }

    package func file(_ name: StoreName) -> StoreFile { StoreFile(folder: folder, name: name.text) }

    /// This device, from its identity (made on first use).
    package func device() throws(KvFailure) -> DeviceID {
        do {
            return try DeviceIdentity.load(environment: environment).identity.publicIdentity.deviceID
        } catch {
            throw .files(error.description)
        }
    }

    /// The store in `file`, written as a new program of this device: the one place a kv command
    /// makes a store from disk. A file that cannot be used says why and what to do.
    package func store(in file: StoreFile) throws(KvFailure) -> KeyValueStore {
        let device = try device()
        do {
            return try KeyValueStore(name: file.name, writer: SenderID.random(device: device), file: file)
        } catch {
            switch error {
            case .unreadable(let sentence):
                throw .files(sentence)
            case .damaged(let reason):
                throw .files("""
                    The store \(file.path) is damaged (\(reason)). The next baton kv command on the network \
                    (kv set, kv watch, kv get without --wait 0), baton monitor or the app moves it aside and \
                    rebuilds the store from peers.
                    """)
            }
        }
    }

    /// The store `name` on disk; nil when it has no file.
    package func existingStore(_ name: StoreName) throws(KvFailure) -> KeyValueStore? {
        let file = file(name)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try store(in: file)
    }

    // MARK: The commands' work without the network

    /// `kv get KEY --wait 0`: the value this machine holds.
    package func value(of key: StoreKey, in name: StoreName) throws(KvFailure) -> PropertyListValue {
        guard let value = try existingStore(name)?.object(forKey: key.text) else {
            throw .noSuchKey(key: key.text, store: name.text, where: .here)
        }
        return value
    }

    /// `kv policy`: the store's policy; a store with no file has the default one.
    package func policy(of name: StoreName) throws(KvFailure) -> ConflictPolicy {
        try existingStore(name)?.policy ?? .newest
    }

    /// `kv policy`'s line: the policy, and for `resolve` the command saved on this machine.
    package func policyLine(of name: StoreName) throws(KvFailure) -> String {
        let policy = try policy(of: name)
        guard policy == .resolve else { return policy.rawValue }
        let command = try? ResolveCommand.saved(for: name.text, environment: environment)
        return "resolve (" + (command.flatMap { $0 }.map(PeerText.visible) ?? "no command: conflicts keep both") + ")"
    }

    /// `kv policy resolve --command CMD`: saves CMD as the store's resolve command on this
    /// machine, then sets the policy.
    package func setResolve(command: String, of name: StoreName) throws(KvFailure) {
        guard !command.trimmed().isEmpty else {
            throw .files("The resolve command is empty: give the command that prints the value to keep, e.g. --command 'jq .winner'.")
        }
        do throws(PrivateFile.Problem) {
            try ResolveCommand.save(command, for: name.text, environment: environment)
        } catch {
            throw .files(error.sentence("resolve command", path: ResolveCommand.path(of: name.text, environment: environment)))
        }
        try setPolicy(.resolve, of: name)
    }

    /// `kv policy POLICY`: sets the store's policy on disk, making the store when it has no
    /// file yet, and reads it back.
    package func setPolicy(_ policy: ConflictPolicy, of name: StoreName) throws(KvFailure) {
        if policy == .resolve, (try? ResolveCommand.saved(for: name.text, environment: environment)) ?? nil == nil {
            throw .files("The policy resolve needs the command that decides: baton kv policy resolve --command CMD (see --help).")
        }
        let store: KeyValueStore
        if let existing = try existingStore(name) {
            store = existing
        } else {
            let device = try device()
            let file = file(name)
            guard let made = try? KeyValueStore(name: name.text, writer: SenderID.random(device: device), file: file) else {
                throw .files("Cannot make the store \(file.path).")
            }
            store = made
        }
        store.policy = policy
        guard store.policy == policy, (try? store.file?.read())??.policy == policy else {
            throw .files("Cannot write the store \(store.file?.path ?? name.text): its policy stays as it was.")
        }
    }

    /// A write made on disk alone, when the network could not be joined (`failure`): it goes
    /// out when a Baton program of this machine is on the network. When the store cannot be
    /// opened either, what the network said is what to fix first: `failure` is thrown.
    package func writeOffline(
        _ name: StoreName, because failure: any Error, _ write: (KeyValueStore) throws(KeyValueStoreError) -> Void
    ) throws -> KvDelivery {
        guard let store = try? store(in: file(name)) else { throw failure }
        do {
            try write(store)
        } catch {
            throw KvFailure.refused(error)
        }
        return .offline(because: String(describing: failure))
    }

    /// `kv list` without the network: the store on disk, its writers named from this
    /// machine's list of devices (this device listed as `ownName`).
    package func listing(_ name: StoreName, ownName: String) throws(KvFailure) -> KvListing {
        let store = try existingStore(name)
        return KvListing(store: store, roster: store == nil ? nil : roster(ownName: ownName))
    }

    /// This machine's list of devices, to name writers; nil when it cannot be read.
    package func roster(ownName: String) -> DeviceRoster? {
        guard let identity = try? DeviceIdentity.load(environment: environment).identity,
            let snapshot = try? DeviceList.standard(environment: environment).snapshot()
        else { return nil }
        return MembershipStore.roster(identity: identity, name: ownName, snapshot: snapshot)
    }

    /// What `kv list` says of a store with no key, and the other stores here.
    package func emptyNote(_ name: StoreName) -> String {
        let others = StoreFile.names(in: folder).filter { $0 != name.text }
        let hint = others.isEmpty ? "" : " Other stores here (--store NAME): " + others.map(PeerText.visible).joined(separator: ", ") + "."
        return "The store \(KvText.quoted(name.text)) holds no keys on this machine (\(folder)).\(hint)"
    }
}

/// What `kv list` shows of a store: its rows, and whether it is stale.
package struct KvListing: Equatable {
    package let name: String?
    package let rows: [StoreText.Row]
    /// Whether the store has not synced with a peer for longer than a removal is remembered.
    package let isStale: Bool
    /// When it last synced with a peer; nil: never.
    package let lastSync: Date?

    @MainActor
    init(store: KeyValueStore?, roster: DeviceRoster?) {
        name = store?.name
        let entries = store.map { store in store.dictionaryRepresentation.keys.compactMap(store.entry(forKey:)) } ?? []
        rows = StoreText.rows(entries, roster: roster)
        isStale = store?.isStale ?? false
        lastSync = store?.lastSync
    }

    /// What `kv list` says on standard error of a stale store, as of `now`.
    package func staleNote(now: Date) -> String? {
        guard let name, isStale else { return nil }
        return StoreText.staleNote(store: name, lastSync: lastSync, now: now)
    }
}
