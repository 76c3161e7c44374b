import FoundationEssentials
import Handoff
import HandoffStore
import HandoffWire
import PropertyList

/// A `baton kv` command on the network: every store of this machine held through one activity
/// center and answering peers (`StoreSync`), with the one the command names opened, and the
/// work of the commands that need peers.
///
/// What goes wrong with a store's file is said through `say`, once per sentence.
@MainActor
package final class KvSession {
    package let sync: StoreSync
    package let store: KeyValueStore
    private let say: (String) -> Void
    private let leave: @MainActor () async -> Void
    /// How many of `sync`'s problems were looked at, and the sentences said (a store opened
    /// twice can have the same problem twice).
    private var told = 0
    private var said: Set<String> = []

    private init(sync: StoreSync, store: KeyValueStore, say: @escaping (String) -> Void, leave: @escaping @MainActor () async -> Void) {
        self.sync = sync
        self.store = store
        self.say = say
        self.leave = leave
    }

    /// Holds the stores of `folder` (nil: in memory) through `center`, opens (or makes) `name`
    /// and starts answering peers. `leave` is how the command leaves the network when done. A
    /// store that cannot be opened is said, the network left, and `.storeUnusable` thrown.
    package static func open(
        center: ActivityCenter, folder: String?, store name: StoreName, say: @escaping (String) -> Void,
        leave: @escaping @MainActor () async -> Void
    ) async throws(KvFailure) -> KvSession {
        let sync = StoreSync(center: center, folder: folder)
        sync.resolvers = ResolveCommand.resolvers(environment: ProcessInfo.processInfo.environment)
        let store: KeyValueStore
        do {
            store = try sync.store(named: name.text)
        } catch {
            var said = Set<String>()
            for problem in sync.problems where said.insert(problem).inserted { say(PeerText.visible(problem)) }
            switch error {
            case .unreadable(let sentence): if !said.contains(sentence) { say(PeerText.visible(sentence)) }
            case .damaged(let reason): say("The store \(KvText.quoted(name.text)) cannot be used: \(PeerText.visible(reason)).")
            }
            sync.stop()
            await leave()
            throw .storeUnusable
        }
        sync.start()
        let session = KvSession(sync: sync, store: store, say: say, leave: leave)
        session.tellProblems()
        return session
    }

    /// Says the problems of the stores not said yet.
    package func tellProblems() {
        let problems = sync.problems
        guard problems.count > told else { return }
        for problem in problems[told...] where said.insert(problem).inserted { say(PeerText.visible(problem)) }
        told = problems.count
    }

    /// Stops answering peers and leaves the network; the stores are on disk.
    package func close() async {
        tellProblems()
        sync.stop()
        await leave()
    }

    // MARK: The commands' work

    /// `kv get KEY`: waits up to `wait` for a peer to be in step, closes, and gives the value.
    package func value(of key: StoreKey, wait: Seconds) async throws(KvFailure) -> PropertyListValue {
        let synced = await sync.waitForSync(of: store.name, timeout: wait.timeInterval)
        let value = store.object(forKey: key.text)
        await close()
        guard let value else { throw .noSuchKey(key: key.text, store: store.name, where: synced ? .inStep : .unanswered(wait)) }
        return value
    }

    /// `kv set KEY VALUE`.
    package func set(_ value: PropertyListValue, forKey key: StoreKey, wait: Seconds) async throws(KvFailure) -> KvDelivery {
        try await write(keys: [key.text], wait: wait) { store throws(KeyValueStoreError) in try store.set(value, forKey: key.text) }
    }

    /// `kv import FILE`: every key in one write; a nil value removes its key.
    package func setAll(_ values: [String: PropertyListValue?], wait: Seconds) async throws(KvFailure) -> KvDelivery {
        try await write(keys: Array(values.keys), wait: wait) { store throws(KeyValueStoreError) in try store.setAll(values) }
    }

    /// `kv rm KEY`. A key this machine has not heard of yet may be at a peer: it waits up to
    /// `wait` for one to be in step before it says there is none.
    package func remove(_ key: StoreKey, wait: Seconds) async throws(KvFailure) -> KvDelivery {
        if store.object(forKey: key.text) == nil, !wait.isZero {
            _ = await sync.waitForSync(of: store.name, timeout: wait.timeInterval)
        }
        guard store.object(forKey: key.text) != nil else {
            await close()
            throw .noSuchKey(key: key.text, store: store.name, where: .toRemove)
        }
        return try await write(keys: [key.text], wait: wait) { store throws(KeyValueStoreError) in
            try store.removeObject(forKey: key.text)
        }
    }

    /// `kv list --wait`: waits up to `wait` for a peer to be in step, closes, and lists the
    /// store, its writers named from the membership's list.
    package func listing(wait: Seconds) async -> KvListing {
        _ = await sync.waitForSync(of: store.name, timeout: wait.timeInterval)
        await close()
        return KvListing(store: store, roster: sync.center.membership.roster)
    }

    /// `kv watch`: the lines of one change of the store, one per key, as of `now`.
    package func lines(of change: KeyValueStoreChange, json: Bool, at now: Date) -> [String] {
        change.keys.map { key in
            StoreText.change(
                store: store.name, reason: change.reason.rawValue, key: key, value: store.object(forKey: key), json: json,
                savedAt: store.entry(forKey: key)?.version.date, at: now, note: change.note)
        }
    }

    /// Makes a write of `keys` with `body`, then waits up to `wait` for a peer to take its
    /// greatest version, and closes. A store that refuses the write (a limit) closes and throws.
    func write(keys: [String], wait: Seconds, _ body: (KeyValueStore) throws(KeyValueStoreError) -> Void) async throws(KvFailure) -> KvDelivery {
        do {
            try body(store)
        } catch {
            await close()
            throw .refused(error)
        }
        let version = keys.compactMap { store.entry(forKey: $0)?.version }.max()
        var delivery = KvDelivery.sent
        if !wait.isZero, let version {
            delivery = await sync.waitForPeer(toTake: version, timeout: wait.timeInterval) ? .taken : .notTaken
        }
        await close()
        return delivery
    }
}
