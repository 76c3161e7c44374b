import BatonFiles
import FoundationEssentials
import Handoff
import HandoffWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension MembershipStore {
    // MARK: Storing

    /// Stores what `membership` changed: a new group key (current into the key file, the one it
    /// replaced into `….old`), then every statement it keeps (added to what the file holds:
    /// another process's statements stay). Returns sentences for the person, said once: when
    /// the key came from `BATON_KEY`, that it is no longer the group's (the new key goes to the
    /// default key file, which the program reads from then on).
    @discardableResult
    package func store(_ change: Membership.Change, of membership: Membership) throws(Failure) -> [String] {
        guard !change.isEmpty else { return [] }
        let keys = membership.keys
        let statements = membership.roster.statements.map(\.bytes)
        return try store(keys: change.newKey == nil ? nil : keys, statements: statements)
    }

    /// Stores `keys` (when given) and adds `statements`, under the lock; see `store(_:of:)`.
    @discardableResult
    package func store(keys: GroupKeys?, statements: [[UInt8]]) throws(Failure) -> [String] {
        var notices: [String] = []
        do {
            try devices.locked { (held: DeviceList.Held) throws(DeviceList.Failure) in
                if let keys {
                    let (path, fromEnvironment, tell) = state.withLock { s in
                        let fromEnvironment = s.keyPath == nil
                        let tell = fromEnvironment && !s.toldEnvironment
                        if fromEnvironment {
                            s.keyPath = defaultKeyPath
                            s.toldEnvironment = true
                        }
                        return (s.keyPath!, fromEnvironment, tell)
                    }
                    do {
                        try GroupKey.store(current: keys.current, previous: keys.previous, at: path)
                    } catch {
                        throw DeviceList.Failure(description: "The new group key could not be stored: \(error)")
                    }
                    if fromEnvironment, tell {
                        notices.append("""
                            The group key changed, and BATON_KEY holds the key the group used before: the new key is \
                            in \(path) (the old one in \(path).old). Unset BATON_KEY (unset BATON_KEY) so that Baton \
                            uses that file from now on.
                            """)
                    }
                }
                // Another process wrote since this store last looked: leave the stamps as they were,
                // so that the next reload still reads what it wrote.
                let othersWrote = state.withLock { $0.stamps != currentStamps($0.keyPath) }
                var snapshot = try held.snapshot()
                if snapshot.add(statements: statements) > 0 { try held.write(snapshot) }
                state.withLock { s in
                    if !othersWrote { s.stamps = currentStamps(s.keyPath) }
                    s.storedDigest = Statement.setDigest(snapshot.statements)
                    if let keys { s.storedKey = keys.currentID }
                }
            }
        } catch {
            throw Failure(error.description)
        }
        return notices
    }

    // MARK: Noticing other processes

    /// The stamps of `devices.json`, the key file and its `.old`.
    func currentStamps(_ keyPath: String?) -> [Stamp?] {
        var paths = [devices.path]
        if let keyPath { paths += [keyPath, keyPath + ".old"] }
        return paths.map(Self.stamp)
    }

    static func stamp(_ path: String) -> Stamp? {
        DiskStamp.of(path)
    }

    /// Whether `devices.json`, the key file or its `.old` changed since this store last read or
    /// wrote them (one `stat` each: cheap enough to call every second).
    package var filesChanged: Bool {
        state.withLock { $0.stamps != currentStamps($0.keyPath) }
    }

    /// When the files changed, reads them again and gives `membership` the list and keys they
    /// make (`Membership.replace`); returns whether it did. Statements `membership` took that
    /// are not on disk yet are kept, and so is a key it switched to through one of them.
    @discardableResult
    package func reloadIfChanged(_ membership: Membership) throws(Failure) -> Bool {
        let (changed, keyPath) = state.withLock { s in (s.stamps != currentStamps(s.keyPath), s.keyPath) }
        guard changed else { return false }
        let snapshot: DeviceList.Snapshot
        do {
            snapshot = try devices.snapshot()
        } catch {
            throw Failure(error.description)
        }
        let stamps = currentStamps(keyPath)
        let current = try readCurrent()
        let previous = try readPrevious()
        var roster = Self.roster(identity: membership.identity, name: name, snapshot: snapshot)
        let held = membership.roster.statements.map(\.bytes)
        roster.take(all: held)
        var keys = GroupKeys(current: current, previous: previous)
        let inMemory = membership.keys
        if inMemory.current != current,
            roster.keyToSwitchTo(current: keys.currentID, identity: membership.identity) == inMemory.current
        {
            keys = keys.changed(to: inMemory.current)
        }
        membership.replace(roster: roster, keys: keys)
        state.withLock { s in
            s.stamps = stamps
            s.storedDigest = Statement.setDigest(snapshot.statements)
            s.storedKey = current.keyID
        }
        return true
    }

    /// One round of keeping `membership` and the files together: reads what another process
    /// changed (`reloadIfChanged`), then stores what `membership` took that the files lack
    /// (statements, a key it switched to). Says whether it reloaded, and the sentences to
    /// tell the person (`store`).
    package func sync(_ membership: Membership) throws(Failure) -> (reloaded: Bool, notices: [String]) {
        let reloaded = try reloadIfChanged(membership)
        let roster = membership.roster
        let keys = membership.keys
        let (digest, key) = state.withLock { ($0.storedDigest, $0.storedKey) }
        guard roster.digest != digest || keys.currentID != key else { return (reloaded, []) }
        let notices = try store(keys: keys.currentID != key ? keys : nil, statements: roster.statements.map(\.bytes))
        state.withLock { $0.storedDigest = roster.digest }
        return (reloaded, notices)
    }

    /// Keeps `membership` and the files together every `interval` (`sync`) until the task is
    /// cancelled: after a reload calls `reloaded` (the program gives the center
    /// `membershipReplaced()`, which sends DEVICES with what it now keeps); sentences for the
    /// person go to `notice`. A problem with the files goes to `failed`, once until it changes;
    /// the membership then stays as it was.
    package func keep(
        _ membership: Membership, every interval: Duration = .seconds(1),
        reloaded: @escaping @Sendable () -> Void = {}, notice: @escaping @Sendable (String) -> Void = { _ in },
        failed: @escaping @Sendable (String) -> Void = { _ in }
    ) -> Task<Void, Never> {
        Task.detached { [self] in
            var lastProblem: String?
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { break }
                do throws(Failure) {
                    let round = try sync(membership)
                    if round.reloaded { reloaded() }
                    round.notices.forEach(notice)
                    lastProblem = nil
                } catch {
                    if error.description != lastProblem { failed(error.description) }
                    lastProblem = error.description
                }
            }
        }
    }
}

extension MembershipStore {
    /// Stops `keeper` (from `keep`) and keeps `membership` and the files together once more
    /// (`sync`), so that a program that ends stores what it took since the keeper's last round.
    /// Returns the sentences for the person; a problem with the files is returned as one.
    @discardableResult
    package func stopKeeping(_ keeper: Task<Void, Never>?, _ membership: Membership) -> [String] {
        keeper?.cancel()
        do {
            return try sync(membership).notices
        } catch {
            return ["devices: \(error.description)"]
        }
    }
}
