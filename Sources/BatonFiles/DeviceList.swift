import FoundationEssentials
import HandoffWire
#if canImport(Glibc)
import Glibc
#endif

/// One device this machine knows: how it is called, its public identity, and how it got here.
public struct DeviceEntry: Codable, Equatable, Sendable {
    /// The name it gave when it paired (as it sent it; make it safe before printing).
    public var name: String
    /// Its public identity, base64 (64 bytes).
    public var identity: String
    /// Its device id, 32 hex digits.
    public var deviceID: String
    /// The device id in 8 groups of 4, as `baton id` prints it on that machine.
    public var fingerprint: String
    /// How it came into the list: `paired`.
    public var via: String
    /// When it was (last) paired with.
    public var paired: Date
    /// When a datagram of it was last heard; not yet kept.
    public var lastHeard: Date?

    public init(name: String, identity: PublicIdentity, via: String = "paired", paired: Date, lastHeard: Date? = nil) {
        self.name = name
        self.identity = identity.base64
        self.deviceID = identity.deviceID.hex
        self.fingerprint = identity.deviceID.fingerprint
        self.via = via
        self.paired = paired
        self.lastHeard = lastHeard
    }

    /// The identity, when `identity` is 64 bytes of base64 whose id is `deviceID` and `fingerprint`.
    public var publicIdentity: PublicIdentity? {
        guard let data = Data(base64Encoded: identity), let key = PublicIdentity(bytes: Array(data)),
            key.deviceID.hex == deviceID, key.deviceID.fingerprint == fingerprint
        else { return nil }
        return key
    }
}

/// `devices.json` in Baton's folder: the devices this machine paired with (docs/PROTOCOL.md,
/// section 15, "The device list") and the statements it keeps (section 17), base64, in the
/// order taken. Written whole, atomically, mode 0600, while an exclusive `flock` on
/// `devices.json.lock` is held, so two Baton processes that add at once both keep their entries
/// and statements. A file that cannot be read or parsed is an error, never taken as empty.
public struct DeviceList: Sendable {
    /// Why the list could not be read or written; the description is the sentence to print.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// What the file holds. `statements` is absent in files written before statements existed.
    struct Contents: Codable {
        var version: Int
        var devices: [DeviceEntry]
        var statements: [String]?
    }

    /// The whole list: the paired entries, in the order first added, and the statements kept,
    /// whole (section 17), in the order taken.
    public struct Snapshot: Equatable, Sendable {
        public var devices: [DeviceEntry]
        public var statements: [[UInt8]]

        public init(devices: [DeviceEntry] = [], statements: [[UInt8]] = []) {
            self.devices = devices
            self.statements = statements
        }

        /// Adds the device of `identity` as paired at `date`, or, when its device id is listed,
        /// updates that entry's name and time. Returns whether it was new.
        @discardableResult
        public mutating func recordPaired(name: String, identity: PublicIdentity, at date: Date) -> Bool {
            if let index = devices.firstIndex(where: { $0.deviceID == identity.deviceID.hex }) {
                devices[index].name = name
                devices[index].paired = date
                devices[index].via = "paired"
                return false
            }
            devices.append(DeviceEntry(name: name, identity: identity, paired: date))
            return true
        }

        /// Appends the statements not kept yet, in the order given; says how many were new.
        @discardableResult
        public mutating func add(statements new: some Sequence<[UInt8]>) -> Int {
            var kept = Set(statements)
            var added = 0
            for statement in new where kept.insert(statement).inserted {
                statements.append(statement)
                added += 1
            }
            return added
        }
    }

    public let path: String
    /// Whether the folder is Baton's own, kept at 0700.
    let privateFolder: Bool

    public init(path: String, privateFolder: Bool = false) {
        self.path = path
        self.privateFolder = privateFolder
    }

    /// The list in Baton's folder: `$XDG_CONFIG_HOME/baton/devices.json` or `~/.config/baton/devices.json`.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceList {
        DeviceList(
            path: PlainText.path(GroupKey.defaultFolder(environment: environment), "devices.json"),
            privateFolder: true)
    }

    static let limit = 4 * 1024 * 1024

    /// The entries, in the order they were first added; none when the file does not exist.
    public func entries() throws(Failure) -> [DeviceEntry] {
        try read().devices
    }

    /// The entries and the statements; empty when the file does not exist.
    public func snapshot() throws(Failure) -> Snapshot {
        try read()
    }

    /// Adds the device of `identity` as paired at `date`, or, when its device id is listed,
    /// updates that entry's name and time. Returns whether it was new.
    @discardableResult
    public func recordPaired(
        name: String, identity: PublicIdentity, at date: Date, statements: [[UInt8]] = []
    ) throws(Failure) -> Bool {
        try updateSnapshot { snapshot in
            snapshot.add(statements: statements)
            return snapshot.recordPaired(name: name, identity: identity, at: date)
        }
    }

    /// Runs `change` on the entries and writes them back, all under the lock.
    public func update<Result>(_ change: (inout [DeviceEntry]) -> Result) throws(Failure) -> Result {
        try updateSnapshot { change(&$0.devices) }
    }

    /// Adds the statements not kept yet (to what the file holds now, whoever wrote it last);
    /// says how many were new.
    @discardableResult
    public func add(statements: [[UInt8]]) throws(Failure) -> Int {
        try updateSnapshot { $0.add(statements: statements) }
    }

    /// Runs `change` on the entries and statements and writes them back, all under the lock;
    /// the file is not written when `change` left them as they were.
    public func updateSnapshot<Result>(
        _ change: (inout Snapshot) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try locked { (held: Held) throws(Failure) -> Result in
            let before = try held.snapshot()
            var snapshot = before
            let result = try change(&snapshot)
            if snapshot != before { try held.write(snapshot) }
            return result
        }
    }

    /// The list while its lock is held: read and write it through this, never through the
    /// `DeviceList` (its methods take the lock again, which this process then waits for).
    public struct Held {
        let list: DeviceList
        public func snapshot() throws(Failure) -> Snapshot { try list.read() }
        public func write(_ snapshot: Snapshot) throws(Failure) { try list.write(snapshot) }
    }

    /// Runs `body` while holding the exclusive lock on `devices.json.lock`: other Baton
    /// processes that change the list, or the group key files beside it, wait meanwhile.
    public func locked<Result>(_ body: (Held) throws(Failure) -> Result) throws(Failure) -> Result {
        do throws(PrivateFile.Problem) {
            try PrivateFile.makeFolder(RegularFile.folder(of: path), privateFolder: privateFolder)
        } catch {
            throw Failure(description: error.sentence("device list", path: path))
        }
        let lockPath = path + ".lock"
        let lock: FileLock
        do {
            lock = try FileLock.exclusive(at: lockPath)
        } catch {
            throw Failure(description: error.opening
                ? "Cannot lock the device list: cannot open \(lockPath): \(RegularFile.Problem.reason(error.code))."
                : "Cannot lock the device list \(lockPath): \(RegularFile.Problem.reason(error.code)).")
        }
        defer { lock.release() }
        return try body(Held(list: self))
    }

    private func write(_ snapshot: Snapshot) throws(Failure) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let contents = Contents(
            version: 1, devices: snapshot.devices,
            statements: snapshot.statements.isEmpty ? nil : snapshot.statements.map { Data($0).base64EncodedString() })
        let bytes = Array(try! encoder.encode(contents)) + [0x0a]
        do throws(PrivateFile.Problem) {
            try PrivateFile.write(bytes, to: path, replace: true, privateFolder: false)
        } catch {
            throw Failure(description: error.sentence("device list", path: path))
        }
    }

    private func read() throws(Failure) -> Snapshot {
        let bytes: [UInt8]?
        do throws(PrivateFile.Problem) {
            bytes = try PrivateFile.read(path: path, limit: Self.limit)
        } catch {
            throw Failure(description: error.sentence("device list", path: path))
        }
        guard let bytes else { return Snapshot() }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let contents: Contents
        do {
            contents = try decoder.decode(Contents.self, from: Data(bytes))
        } catch {
            throw corrupt("it is not the JSON Baton writes (\(Self.reason(error)))")
        }
        guard contents.version == 1 else {
            throw corrupt("it is version \(contents.version) of the list, and this Baton reads version 1 (update it)")
        }
        if let bad = contents.devices.first(where: { $0.publicIdentity == nil }) {
            throw corrupt("the entry of \(PeerText.visible(bad.name)) has an identity that does not match its device id")
        }
        var statements: [[UInt8]] = []
        for (index, text) in (contents.statements ?? []).enumerated() {
            guard let data = Data(base64Encoded: text), Statement.sizes.contains(data.count) else {
                throw corrupt("statement \(index + 1) is not the base64 of a statement of 64 to 1,024 bytes")
            }
            statements.append(Array(data))
        }
        return Snapshot(devices: contents.devices, statements: statements)
    }

    private func corrupt(_ reason: String) -> Failure {
        let quoted = GroupKey.LoadError.quoted(path)
        return Failure(description: """
            The device list \(path) cannot be used: \(reason). Nothing was changed. Fix it by hand, or move it \
            aside (mv \(quoted) \(GroupKey.LoadError.quoted(path + ".bad"))) and pair the devices again.
            """)
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): context.debugDescription
        case DecodingError.keyNotFound(let key, _): "no \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }
}
