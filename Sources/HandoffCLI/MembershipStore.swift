import BatonFiles
import Foundation
import Handoff
import HandoffWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The membership on disk (docs/PROTOCOL.md, sections 3, 15 and 17): `identity.key`, the group
/// key (`--key-file`, `BATON_KEY` or `group.key`) with the key before it (`….old`), and
/// `devices.json` (the paired devices and the statements kept). It builds the `Membership` a
/// program runs with, stores what changes it, and notices what other Baton processes on this
/// machine changed (`baton devices remove`, `baton key --new`, `baton pair`, another program).
///
/// It lives in HandoffCLI, not BatonFiles: it builds a `Membership` (Handoff), and it follows
/// the key options every command takes (`--key-file`, `BATON_KEY`), as `NetworkOptions` does;
/// BatonFiles keeps the formats of the single files.
///
/// Every write happens while holding the device list's lock (`devices.json.lock`), the key
/// before the statements, so that statements on disk never name a key the files lack.
public final class MembershipStore: Sendable {
    /// What `load()` gives: the membership, where the key came from, and sentences for the person.
    public struct Loaded: Sendable {
        public let membership: Membership
        public let keySource: GroupKey.Source
        /// Said once, on standard error: an identity just made, introductions just made.
        public let notices: [String]
    }

    /// Size, modification time and inode of one file, or nil when it is absent: an atomic
    /// write (a rename) always changes the inode, so a change is seen even within one tick.
    struct Stamp: Equatable {
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
    }

    private struct State {
        /// Where the current key is read and written; nil while it comes from `BATON_KEY`.
        var keyPath: String?
        var stamps: [Stamp?] = []
        var toldEnvironment = false
        /// The digest of the statements and the key id last read or written: what `sync` compares with.
        var storedDigest: [UInt8] = []
        var storedKey: KeyID?
    }

    public let devices: DeviceList
    /// The name this device lists itself under.
    public let name: String
    let keyFile: String?
    let environment: [String: String]
    private let state: Mutex<State>

    /// `keyFile` is `--key-file`; `name` this device's name (`PeerInfo.local(...).name`).
    public init(
        keyFile: String? = nil, name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.keyFile = keyFile
        self.name = name
        self.environment = environment
        devices = DeviceList.standard(environment: environment)
        let fromEnvironment = keyFile == nil && !(environment["BATON_KEY"] ?? "").isEmpty
        state = Mutex(State(keyPath: keyFile ?? (fromEnvironment ? nil : GroupKey.defaultPath(environment: environment))))
    }

    /// The default key file, where a new key goes when the key came from `BATON_KEY`.
    var defaultKeyPath: String { GroupKey.defaultPath(environment: environment) }

    // MARK: Loading

    /// Reads (or makes) the identity and the group key, reads the key before it and the device
    /// list, introduces the paired devices this device has not introduced yet (stored), and
    /// builds the membership. Errors say which file and what to do.
    public func load() throws(CommandFailure) -> Loaded {
        var notices: [String] = []
        let identity: DeviceIdentity
        do {
            let loaded = try DeviceIdentity.load(environment: environment)
            identity = loaded.identity
            if loaded.created {
                notices.append("This machine had no identity yet: one was made in \(loaded.path) (`baton id` shows it).")
            }
        } catch {
            throw CommandFailure(error.description)
        }
        let (key, source): (GroupKey, GroupKey.Source)
        do {
            (key, source) = try GroupKey.load(keyFile: keyFile, environment: environment)
        } catch {
            throw CommandFailure(error.description)
        }
        let snapshot: DeviceList.Snapshot
        do {
            snapshot = try devices.updateSnapshot { snapshot in
                Self.introduceUnintroduced(in: &snapshot, by: identity, at: Date())
                return snapshot
            }
        } catch {
            throw CommandFailure(error.description)
        }
        let previous = try readPrevious()
        let roster = Self.roster(identity: identity, name: name, snapshot: snapshot)
        let membership = Membership(identity: identity, keys: GroupKeys(current: key, previous: previous), roster: roster)
        state.withLock { s in
            s.stamps = currentStamps(s.keyPath)
            s.storedDigest = roster.digest
            s.storedKey = membership.keys.currentID
        }
        return Loaded(membership: membership, keySource: source, notices: notices)
    }

    /// The list a device builds from what is on disk: itself and the paired entries as roots,
    /// then the statements in the order kept.
    public static func roster(identity: DeviceIdentity, name: String, snapshot: DeviceList.Snapshot) -> DeviceRoster {
        let paired = snapshot.devices.compactMap { entry in
            entry.publicIdentity.map { (identity: $0, name: entry.name) }
        }.filter { $0.identity != identity.publicIdentity }
        var roster = DeviceRoster(own: identity.publicIdentity, name: Self.statementName(name), paired: paired)
        roster.take(all: snapshot.statements)
        return roster
    }

    /// Adds an `introduce` statement by `identity` for every paired entry it has not introduced
    /// yet: devices paired before statements existed are then introduced to the rest of the
    /// group. Returns how many were made.
    @discardableResult
    public static func introduceUnintroduced(
        in snapshot: inout DeviceList.Snapshot, by identity: DeviceIdentity, at date: Date
    ) -> Int {
        let own = identity.publicIdentity
        // Introduced by this device, or removed by anyone: nothing to introduce.
        var introduced = Set<[UInt8]>()
        for bytes in snapshot.statements {
            guard let statement = try? Statement(parsing: bytes) else { continue }
            switch statement.content {
            case .introduce(let device, _) where statement.by == own.deviceID.bytes: introduced.insert(device.deviceID.bytes)
            case .remove(let device): introduced.insert(device)
            default: break
            }
        }
        var made: [[UInt8]] = []
        for entry in snapshot.devices {
            guard let device = entry.publicIdentity, device != own, introduced.insert(device.deviceID.bytes).inserted
            else { continue }
            made.append(Statement(.introduce(identity: device, name: statementName(entry.name)), by: identity, at: date).bytes)
        }
        return snapshot.add(statements: made)
    }

    /// A name as an introduction carries it: 1–64 UTF-8 bytes, cut at a character boundary.
    public static func statementName(_ name: String) -> String {
        var bytes = Array(name.utf8.prefix(Statement.maximumNameBytes))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        return bytes.isEmpty ? "device" : String(decoding: bytes, as: UTF8.self)
    }

    private func readPrevious() throws(CommandFailure) -> GroupKey? {
        guard let path = state.withLock({ $0.keyPath }) else { return nil }
        do {
            return try GroupKey.readIfPresent(path: path + ".old")
        } catch {
            throw CommandFailure(error.description)
        }
    }

    private func readCurrent() throws(CommandFailure) -> GroupKey {
        do {
            if let path = state.withLock({ $0.keyPath }) { return try GroupKey.read(path: path) }
            return try GroupKey(base64: environment["BATON_KEY"] ?? "", source: "BATON_KEY")
        } catch {
            throw CommandFailure(error.description)
        }
    }

    // MARK: Storing

    /// Stores what `membership` changed: a new group key (current into the key file, the one it
    /// replaced into `….old`), then every statement it keeps (added to what the file holds:
    /// another process's statements stay). Returns sentences for the person, said once: when
    /// the key came from `BATON_KEY`, that it is no longer the group's (the new key goes to the
    /// default key file, which the program reads from then on).
    @discardableResult
    public func store(_ change: Membership.Change, of membership: Membership) throws(CommandFailure) -> [String] {
        guard !change.isEmpty else { return [] }
        let keys = membership.keys
        let statements = membership.roster.statements.map(\.bytes)
        return try store(keys: change.newKey == nil ? nil : keys, statements: statements)
    }

    /// Stores `keys` (when given) and adds `statements`, under the lock; see `store(_:of:)`.
    @discardableResult
    public func store(keys: GroupKeys?, statements: [[UInt8]]) throws(CommandFailure) -> [String] {
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
            throw CommandFailure(error.description)
        }
        return notices
    }

    // MARK: Noticing other processes

    /// The stamps of `devices.json`, the key file and its `.old`.
    private func currentStamps(_ keyPath: String?) -> [Stamp?] {
        var paths = [devices.path]
        if let keyPath { paths += [keyPath, keyPath + ".old"] }
        return paths.map(Self.stamp)
    }

    static func stamp(_ path: String) -> Stamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Stamp(
            size: Int64(info.st_size), seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec,
            inode: UInt64(info.st_ino))
    }

    /// Whether `devices.json`, the key file or its `.old` changed since this store last read or
    /// wrote them (one `stat` each: cheap enough to call every second).
    public var filesChanged: Bool {
        state.withLock { $0.stamps != currentStamps($0.keyPath) }
    }

    /// When the files changed, reads them again and gives `membership` the list and keys they
    /// make (`Membership.replace`); returns whether it did. Statements `membership` took that
    /// are not on disk yet are kept, and so is a key it switched to through one of them.
    @discardableResult
    public func reloadIfChanged(_ membership: Membership) throws(CommandFailure) -> Bool {
        let (changed, keyPath) = state.withLock { s in (s.stamps != currentStamps(s.keyPath), s.keyPath) }
        guard changed else { return false }
        let snapshot: DeviceList.Snapshot
        do {
            snapshot = try devices.snapshot()
        } catch {
            throw CommandFailure(error.description)
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
    public func sync(_ membership: Membership) throws(CommandFailure) -> (reloaded: Bool, notices: [String]) {
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
    public func keep(
        _ membership: Membership, every interval: Duration = .seconds(1),
        reloaded: @escaping @Sendable () -> Void = {}, notice: @escaping @Sendable (String) -> Void = { _ in },
        failed: @escaping @Sendable (String) -> Void = { _ in }
    ) -> Task<Void, Never> {
        Task.detached { [self] in
            var lastProblem: String?
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { break }
                do throws(CommandFailure) {
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
    public func stopKeeping(_ keeper: Task<Void, Never>?, _ membership: Membership) -> [String] {
        keeper?.cancel()
        do {
            return try sync(membership).notices
        } catch {
            return ["devices: \(error.description)"]
        }
    }
}

extension NetworkOptions {
    /// The membership store for these options: `--key-file`, else `BATON_KEY`, else the
    /// default key file; this device named as `peer` is.
    public func membershipStore(peer: PeerInfo) -> MembershipStore {
        MembershipStore(keyFile: keyFile, name: peer.name)
    }
}
