import FoundationEssentials
import HandoffWire

/// `baton devices remove` and `baton key --new` (docs/PROTOCOL.md, section 17, "Removing a
/// device"): a `remove` statement (for a removal), a new random group key, and a `key`
/// statement sealing it for every listed, not removed device but this one and the removed one.
/// A value: storing it is `MembershipStore.store(keys:statements:)`, sending it `DevicesSender`.
public struct KeyChange: Sendable {
    /// The device removed, when it is a removal.
    public let removed: DeviceRoster.Device?
    /// The devices the new key is sealed for, by name.
    public let recipients: [DeviceRoster.Device]
    public let newKey: GroupKey
    /// The keys after the change: the new one current, the one it replaces previous.
    public let keys: GroupKeys
    /// The `remove` statement first (for a removal), then one `key` statement per recipient.
    public let statements: [Statement]

    /// The change made by `identity` on `roster`, whose current key is `keys.current`.
    public init(
        roster: DeviceRoster, identity: DeviceIdentity, keys: GroupKeys, removing: DeviceRoster.Device? = nil,
        newKey: GroupKey = .random(), at date: Date
    ) {
        precondition(roster.own == identity.publicIdentity, "the roster is this device's")
        let own = identity.publicIdentity.deviceID.bytes
        var statements: [Statement] = []
        if let removing { statements.append(Statement(.remove(device: removing.deviceID), by: identity, at: date)) }
        let recipients = roster.listed.values
            .filter { $0.deviceID != own && $0.deviceID != removing?.deviceID && !roster.removed.contains($0.deviceID) }
            .sorted { ($0.name, $0.identity.deviceID.hex) < ($1.name, $1.identity.deviceID.hex) }
        for device in recipients {
            statements.append(Statement.key(newKey, for: device.identity, by: identity, at: date))
        }
        self.removed = removing
        self.recipients = recipients
        self.newKey = newKey
        self.keys = keys.changed(to: newKey)
        self.statements = statements
    }

    /// What the person reads when it is done: "Removed carol@vm (fingerprint …). New group key
    /// sent to 2 devices: alice@laptop, bob@desk."
    public var summary: String {
        var text = ""
        if let removed {
            text = "Removed \(PeerText.visible(removed.name)) (fingerprint \(removed.identity.deviceID.fingerprint)). "
        }
        switch recipients.count {
        case 0:
            text += "New group key made; no other device is listed to send it to."
        default:
            let names = recipients.map { PeerText.visible($0.name) }.joined(separator: ", ")
            text += "New group key sent to \(recipients.count) device\(recipients.count == 1 ? "" : "s"): \(names)."
        }
        return text
    }
}

/// Which listed device `baton devices remove` names: by name (any case), by fingerprint (its
/// 32 hex digits, with or without the spaces), or by the first 4 or more of those digits.
public enum DeviceMatch: Equatable, Sendable {
    case found(DeviceRoster.Device)
    /// It names this device.
    case own
    /// It names a device already removed.
    case alreadyRemoved(fingerprint: String)
    case none
    /// No name fits, and the text is 1 to 3 hex digits: too few to pick a fingerprint by
    /// (`minimumDigits` are needed); it holds how many were given.
    case tooFewDigits(Int)
    /// More than one listed device fits: they are listed, to pick one by fingerprint.
    case ambiguous([DeviceRoster.Device])

    /// How many leading fingerprint digits pick a device.
    public static let minimumDigits = 4

    public static func find(_ text: String, in roster: DeviceRoster, removedNames: [[UInt8]: String] = [:]) -> DeviceMatch {
        let wanted = text.trimmed(newlines: false)
        let hex = wanted.lowercased().filter { $0 != " " }
        let allHex = !hex.isEmpty && hex.allSatisfy(\.isHexDigit)
        let isHex = allHex && hex.count >= minimumDigits
        func fits(_ device: DeviceRoster.Device) -> Bool {
            device.name.lowercased() == wanted.lowercased() || (isHex && device.identity.deviceID.hex.hasPrefix(hex))
        }
        let own = roster.listed[roster.own.deviceID.bytes]
        if let own, own.name.lowercased() == wanted.lowercased() || (isHex && hex == own.identity.deviceID.hex) {
            return .own
        }
        let matches = roster.listed.values.filter { $0.deviceID != roster.own.deviceID.bytes && fits($0) }
            .sorted { $0.identity.deviceID.hex < $1.identity.deviceID.hex }
        switch matches.count {
        case 1: return .found(matches[0])
        case 0:
            if isHex, let gone = roster.removed.first(where: { Self.hex($0).hasPrefix(hex) }) {
                return .alreadyRemoved(fingerprint: Self.fingerprint(gone))
            }
            if let gone = removedNames.first(where: { $0.value.lowercased() == wanted.lowercased() }) {
                return .alreadyRemoved(fingerprint: Self.fingerprint(gone.key))
            }
            if isHex, own.map({ $0.identity.deviceID.hex.hasPrefix(hex) }) ?? false { return .own }
            if allHex, !isHex { return .tooFewDigits(hex.count) }
            return .none
        default: return .ambiguous(matches)
        }
    }

    static func hex(_ id: [UInt8]) -> String { PlainText.hex(id) }

    /// A device id as `baton id` prints a fingerprint: 8 groups of 4 hex digits.
    public static func fingerprint(_ id: [UInt8]) -> String {
        let digits = Array(hex(id))
        return stride(from: 0, to: digits.count, by: 4).map { String(digits[$0..<min($0 + 4, digits.count)]) }
            .joined(separator: " ")
    }
}
