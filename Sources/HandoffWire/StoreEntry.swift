import FoundationEssentials
import PropertyList

/// One key of a key-value store as it travels (docs/PROTOCOL.md, section 18): its value (none
/// in a tombstone, the mark of a removed key), its version, and the version it replaced on its
/// writer.
public struct StoreEntry: Equatable, Sendable {
    /// Keys are 1–64 UTF-8 bytes.
    public static let keyBytes = 1...64

    public let key: String
    /// The value; nil in a tombstone.
    public let value: PropertyListValue?
    public let version: StoreVersion
    /// The version this write replaced on its writer, when it replaced one.
    public let replaces: StoreVersion?
    /// A keep-local write: never answered by another.
    public let kept: Bool

    public init(key: String, value: PropertyListValue?, version: StoreVersion, replaces: StoreVersion? = nil, kept: Bool = false) {
        self.key = key
        self.value = value
        self.version = version
        self.replaces = replaces
        self.kept = kept
    }

    /// Whether the entry records a removal.
    public var isTombstone: Bool { value == nil }

    /// Whether `key` is 1–64 UTF-8 bytes.
    public static func isValidKey(_ key: String) -> Bool { keyBytes.contains(key.utf8.count) }

    /// The entry as a dictionary of a STORE's `entries`.
    public var plist: PropertyListValue {
        var dict: [String: PropertyListValue] = ["key": .string(key), "version": .data(Data(version.bytes))]
        if let value { dict["value"] = value }
        if let replaces { dict["replaces"] = .data(Data(replaces.bytes)) }
        if kept { dict["kept"] = .boolean(true) }
        return .dictionary(dict)
    }

    /// Reads one entry alone (a store's file holds them so), with the checks of section 18:
    /// presence and types first, then the lengths.
    public init(plist: PropertyListValue) throws(RejectionReason) {
        let raw = try Self.types(of: plist)
        guard Self.isValidKey(raw.key), let version = StoreVersion(bytes: raw.version) else { throw .invalidValue }
        var replaces: StoreVersion?
        if let data = raw.replaces {
            guard let replaced = StoreVersion(bytes: data) else { throw .invalidValue }
            replaces = replaced
        }
        self.init(key: raw.key, value: raw.value, version: version, replaces: replaces, kept: raw.kept)
    }

    /// An entry's keys, present and of the right types (section 7, step 13), lengths unchecked.
    static func types(of plist: PropertyListValue) throws(RejectionReason)
        -> (key: String, version: Data, value: PropertyListValue?, replaces: Data?, kept: Bool)
    {
        guard let dict = plist.dictionaryValue else { throw .wrongType }
        guard let keyValue = dict["key"] else { throw .missingKey }
        guard let key = keyValue.stringValue else { throw .wrongType }
        guard let versionValue = dict["version"] else { throw .missingKey }
        guard let version = versionValue.dataValue else { throw .wrongType }
        var replaces: Data?
        if let value = dict["replaces"] {
            guard let data = value.dataValue else { throw .wrongType }
            replaces = data
        }
        var kept = false
        if let value = dict["kept"] {
            guard let flag = value.boolValue else { throw .wrongType }
            kept = flag
        }
        return (key, version, dict["value"], replaces, kept)
    }

    /// What the entry counts against a store's 1,048,576 bytes: the key's UTF-8 bytes and the
    /// canonical binary plist of the value alone; 0 for a tombstone.
    public var size: Int {
        guard let value else { return 0 }
        return key.utf8.count + BinaryPropertyListWriter().write(value).count
    }
}
