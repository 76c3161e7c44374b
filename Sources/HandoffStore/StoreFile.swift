import BatonFiles
import FoundationEssentials
import HandoffWire
import PropertyList
#if canImport(Glibc)
import Glibc
#endif

/// A store on disk: `FOLDER/NAME.plist`, a binary plist written atomically with mode 0600 in a
/// 0700 folder (by default `$XDG_STATE_HOME/baton/store`).
///
/// The root is a dictionary: `format` (1), `store` (the name), `policy`, `clock` (the greatest
/// clock made or taken), `lastSync` (the last exchange with a peer, when there was one) and
/// `entries`, each as a STORE datagram carries it (tombstones included), and `ancestors`: the
/// values writes replaced, kept for a resolver (`StoreAncestors`; a file without them reads as
/// keeping none).
public struct StoreFile: Sendable, Equatable {
    /// What a store's file holds.
    public struct Contents: Sendable, Equatable {
        public var policy: ConflictPolicy
        public var clock: UInt64
        public var lastSync: Date?
        public var entries: [StoreEntry]
        /// The values writes replaced (`StoreAncestors`).
        package var ancestors: [StoreAncestors.Ancestor] = []

        public init(policy: ConflictPolicy = .newest, clock: UInt64 = 0, lastSync: Date? = nil, entries: [StoreEntry] = []) {
            self.policy = policy
            self.clock = clock
            self.lastSync = lastSync
            self.entries = entries
        }
    }

    /// Why a store's file could not be read.
    public enum ReadProblem: Error, Equatable, Sendable {
        /// Not readable at all (permissions, not a regular file, another owner): left where it is.
        case unreadable(String)
        /// Read, but not a store: `reason` says why. The file can be moved aside.
        case damaged(String)
    }

    /// Files are at most this large: a full store with room for its versions and tombstones.
    public static let sizeLimit = 8 * 1_048_576

    public let folder: String
    public let name: String

    public init(folder: String, name: String) {
        self.folder = folder
        self.name = name
    }

    /// `folder/name.plist`.
    public var path: String { folder + "/" + name + ".plist" }

    /// The default folder: `$XDG_STATE_HOME/baton/store`, else `~/.local/state/baton/store`.
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/baton/store" }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? PlainText.homeFolder
        return home + "/.local/state/baton/store"
    }

    /// The names of the stores in `folder`, sorted.
    public static func names(in folder: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return files.filter { $0.hasSuffix(".plist") }.map { String($0.dropLast(6)) }.filter(StoreMessage.isValidName).sorted()
    }

    /// The store's contents; nil when there is no file.
    public func read() throws(ReadProblem) -> Contents? {
        let bytes: [UInt8]?
        do {
            bytes = try PrivateFile.read(path: path, limit: Self.sizeLimit)
        } catch {
            throw .unreadable(error.sentence("store", path: path))
        }
        guard let bytes else { return nil }
        let limits = BinaryPropertyListReader.Limits(maxObjects: 1 << 20, maxBytes: Self.sizeLimit)
        let root: PropertyListValue
        do {
            root = try BinaryPropertyListReader(limits: limits).read(bytes)
        } catch {
            throw .damaged("not a binary property list (\(error))")
        }
        guard let dict = root.dictionaryValue, dict["format"]?.intValue == 1,
            dict["store"]?.stringValue == name,
            let clock = dict["clock"]?.intValue, clock >= 0,
            let array = dict["entries"]?.arrayValue
        else { throw .damaged("not a store file of format 1 named \(name)") }
        let policy = dict["policy"]?.stringValue.flatMap(ConflictPolicy.init(rawValue:)) ?? .newest
        var entries: [StoreEntry] = []
        entries.reserveCapacity(array.count)
        for element in array {
            do throws(RejectionReason) {
                entries.append(try StoreEntry(plist: element))
            } catch {
                throw .damaged("an entry is not valid (\(error))")
            }
        }
        var contents = Contents(policy: policy, clock: UInt64(clock), lastSync: dict["lastSync"]?.dateValue, entries: entries)
        contents.ancestors = (dict["ancestors"]?.arrayValue ?? []).compactMap(StoreAncestors.ancestor(plist:))
        return contents
    }

    /// Writes `contents` atomically (0600, folder 0700); on disk when it returns.
    public func write(_ contents: Contents) throws(KeyValueStoreError) {
        var dict: [String: PropertyListValue] = [
            "format": .integer(1), "store": .string(name), "policy": .string(contents.policy.rawValue),
            "clock": .integer(Int(clamping: contents.clock)), "entries": .array(contents.entries.map(\.plist)),
        ]
        if let lastSync = contents.lastSync { dict["lastSync"] = .date(lastSync) }
        if !contents.ancestors.isEmpty { dict["ancestors"] = .array(contents.ancestors.map(StoreAncestors.plist)) }
        do {
            try PrivateFile.write(BinaryPropertyListWriter().write(.dictionary(dict)), to: path, replace: true, privateFolder: true)
        } catch {
            throw .cannotWrite(path: path, reason: error.sentence("store", path: path))
        }
    }

    /// `folder/name.lock`: held (with `flock`) while a program reads, merges and writes the
    /// store, so that two programs of this machine writing one store keep both their writes.
    public var lockPath: String { folder + "/" + name + ".lock" }

    /// Runs `body` holding the store's lock (`FileLock`; made 0600 when missing, the folder
    /// 0700). Without a lock (the folder cannot be written, or the lock cannot be had), `body`
    /// runs all the same: a store that cannot be locked is still a store this program keeps.
    public func withLock<T>(_ body: () throws(KeyValueStoreError) -> T) throws(KeyValueStoreError) -> T {
        try? PrivateFile.makeFolder(folder, privateFolder: true)
        let lock = try? FileLock.exclusive(at: lockPath)
        defer { lock?.release() }
        return try body()
    }

    /// The file's identity now: what tells a program that another one wrote it.
    public func stamp() -> DiskStamp? {
        DiskStamp.of(path)
    }

    /// Moves a damaged file aside, to `NAME.plist.damaged-UNIXTIME` (`now` as Unix time); returns
    /// where it went.
    public func moveAside(now: Date) -> String? {
        let aside = path + ".damaged-\(Int(now.timeIntervalSince1970))"
        return rename(path, aside) == 0 ? aside : nil
    }
}
