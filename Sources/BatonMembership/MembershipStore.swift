import BatonFiles
import FoundationEssentials
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
/// It lives in a module of its own, above BatonFiles: it builds a `Membership` (Handoff), and
/// BatonFiles keeps the formats of the single files. It takes the key options every command
/// takes (`--key-file`, `BATON_KEY`) as values.
///
/// Every write happens while holding the device list's lock (`devices.json.lock`), the key
/// before the statements, so that statements on disk never name a key the files lack.
package final class MembershipStore: Sendable {
    /// Why the membership's files could not be read or written: the sentence says which file
    /// and what to do. Each line of it is made visible (`PeerText.visible`), as a path or a
    /// name in it may hold any character.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let description: String

        package init(_ description: String) {
            self.description = description.split(separator: "\n", omittingEmptySubsequences: false)
                .map { PeerText.visible(String($0)) }.joined(separator: "\n")
        }
    }

    /// What `load()` gives: the membership, where the key came from, and sentences for the person.
    package struct Loaded: Sendable {
        package let membership: Membership
        package let keySource: GroupKey.Source
        /// Said once, on standard error: an identity just made, introductions just made.
        package let notices: [String]
    }

    /// A file's stamp (`DiskStamp`), or nil when it is absent.
    typealias Stamp = DiskStamp

    struct State {
        /// Where the current key is read and written; nil while it comes from `BATON_KEY`.
        var keyPath: String?
        var stamps: [Stamp?] = []
        var toldEnvironment = false
        /// The digest of the statements and the key id last read or written: what `sync` compares with.
        var storedDigest: [UInt8] = []
        var storedKey: KeyID?
    }

    package let devices: DeviceList
    /// The name this device lists itself under.
    package let name: String
    let keyFile: String?
    let environment: [String: String]
    let state: Mutex<State>

    /// `keyFile` is `--key-file`; `name` this device's name (`PeerInfo.local(...).name`).
    package init(
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
    package func load() throws(Failure) -> Loaded {
        var notices: [String] = []
        let identity: DeviceIdentity
        do {
            let loaded = try DeviceIdentity.load(environment: environment)
            identity = loaded.identity
            if loaded.created {
                notices.append("This machine had no identity yet: one was made in \(loaded.path) (`baton id` shows it).")
            }
        } catch {
            throw Failure(error.description)
        }
        let (key, source): (GroupKey, GroupKey.Source)
        do {
            (key, source) = try GroupKey.load(keyFile: keyFile, environment: environment)
        } catch {
            throw Failure(error.description)
        }
        let snapshot: DeviceList.Snapshot
        do {
            snapshot = try devices.updateSnapshot { snapshot in
                Self.introduceUnintroduced(in: &snapshot, by: identity, at: Date())
                return snapshot
            }
        } catch {
            throw Failure(error.description)
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
    package static func roster(identity: DeviceIdentity, name: String, snapshot: DeviceList.Snapshot) -> DeviceRoster {
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
    package static func introduceUnintroduced(
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
    package static func statementName(_ name: String) -> String {
        var bytes = Array(name.utf8.prefix(Statement.maximumNameBytes))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        return bytes.isEmpty ? "device" : String(decoding: bytes, as: UTF8.self)
    }

    func readPrevious() throws(Failure) -> GroupKey? {
        guard let path = state.withLock({ $0.keyPath }) else { return nil }
        do {
            return try GroupKey.readIfPresent(path: path + ".old")
        } catch {
            throw Failure(error.description)
        }
    }

    func readCurrent() throws(Failure) -> GroupKey {
        do {
            if let path = state.withLock({ $0.keyPath }) { return try GroupKey.read(path: path) }
            return try GroupKey(base64: environment["BATON_KEY"] ?? "", source: "BATON_KEY")
        } catch {
            throw Failure(error.description)
        }
    }
}
