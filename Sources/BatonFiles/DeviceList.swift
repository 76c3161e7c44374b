import Foundation
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
/// section 15, "The device list"). Written whole, atomically, mode 0600, while an exclusive
/// `flock` on `devices.json.lock` is held, so two Baton processes that add at once both keep
/// their entries. A file that cannot be read or parsed is an error, never taken as empty.
public struct DeviceList: Sendable {
    /// Why the list could not be read or written; the description is the sentence to print.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// What the file holds.
    struct Contents: Codable {
        var version: Int
        var devices: [DeviceEntry]
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
            path: (GroupKey.defaultFolder(environment: environment) as NSString).appendingPathComponent("devices.json"),
            privateFolder: true)
    }

    static let limit = 4 * 1024 * 1024

    /// The entries, in the order they were first added; none when the file does not exist.
    public func entries() throws(Failure) -> [DeviceEntry] {
        try read()
    }

    /// Adds the device of `identity` as paired at `date`, or, when its device id is listed,
    /// updates that entry's name and time. Returns whether it was new.
    @discardableResult
    public func recordPaired(name: String, identity: PublicIdentity, at date: Date) throws(Failure) -> Bool {
        try update { devices in
            if let index = devices.firstIndex(where: { $0.deviceID == identity.deviceID.hex }) {
                devices[index].name = name
                devices[index].paired = date
                devices[index].via = "paired"
                return false
            }
            devices.append(DeviceEntry(name: name, identity: identity, paired: date))
            return true
        }
    }

    /// Runs `change` on the entries and writes them back, all under the lock.
    public func update<Result>(_ change: (inout [DeviceEntry]) -> Result) throws(Failure) -> Result {
        do throws(PrivateFile.Problem) {
            try PrivateFile.makeFolder(RegularFile.folder(of: path), privateFolder: privateFolder)
        } catch {
            throw Failure(description: error.sentence("device list", path: path))
        }
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw Failure(description: "Cannot lock the device list: cannot open \(lockPath): \(RegularFile.Problem.reason(errno)).")
        }
        defer { close(fd) }  // closing the descriptor releases the lock
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw Failure(description: "Cannot lock the device list \(lockPath): \(RegularFile.Problem.reason(errno)).")
            }
        }
        var devices = try read()
        let result = change(&devices)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let bytes = Array(try! encoder.encode(Contents(version: 1, devices: devices))) + [0x0a]
        do throws(PrivateFile.Problem) {
            try PrivateFile.write(bytes, to: path, replace: true, privateFolder: false)
        } catch {
            throw Failure(description: error.sentence("device list", path: path))
        }
        return result
    }

    private func read() throws(Failure) -> [DeviceEntry] {
        let bytes: [UInt8]?
        do throws(PrivateFile.Problem) {
            bytes = try PrivateFile.read(path: path, limit: Self.limit)
        } catch {
            throw Failure(description: error.sentence("device list", path: path))
        }
        guard let bytes else { return [] }
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
        return contents.devices
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
