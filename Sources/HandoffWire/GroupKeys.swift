import Crypto
import FoundationEssentials

/// The 4 bytes that name a group key without revealing it: the first 4 bytes of
/// HKDF-SHA256(IKM = the key, salt = `baton-handoff`, info = `v3 key id`, 32 bytes)
/// (docs/PROTOCOL.md, section 3, "Key id").
public struct KeyID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let length = 4
    /// Always 4 bytes.
    public let bytes: [UInt8]

    /// Wraps 4 bytes; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = Array(bytes)
    }

    /// The key id of `key`.
    public init(of key: GroupKey) {
        bytes = Array(WireHKDF.derive(key.bytes, info: Array("v3 key id".utf8)).prefix(Self.length))
    }

    /// Compared as unsigned bytes: a key statement's tie rule ("the greater `keyID` wins").
    public static func < (a: KeyID, b: KeyID) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    public var description: String { PlainText.hex(bytes) }
}

extension GroupKey {
    /// This key's key id (section 3).
    public var keyID: KeyID { KeyID(of: self) }
}

/// The group keys a version 3 device holds: the current one, which it seals with, and the one
/// before the last change, which it still opens with (docs/PROTOCOL.md, sections 3 and 17).
public struct GroupKeys: Equatable, Sendable {
    public let current: GroupKey
    public let previous: GroupKey?
    /// `current`'s key id, worked out once.
    public let currentID: KeyID
    /// `previous`'s key id, worked out once.
    public let previousID: KeyID?

    /// A previous key equal to the current one is dropped.
    public init(current: GroupKey, previous: GroupKey? = nil) {
        self.current = current
        self.previous = previous == current ? nil : previous
        currentID = current.keyID
        previousID = self.previous?.keyID
    }

    /// The key named by `id`, current first; nil when neither has that id (step 5).
    public func key(for id: KeyID) -> GroupKey? {
        if id == currentID { return current }
        if let previous, id == previousID { return previous }
        return nil
    }

    /// The keys after a change to `new`: the current one becomes the previous one. A change to
    /// the key already current changes nothing.
    public func changed(to new: GroupKey) -> GroupKeys {
        new == current ? self : GroupKeys(current: new, previous: current)
    }
}

/// HKDF-SHA256 with the salt `baton-handoff` and 32 bytes out, as the datagram layer uses it.
enum WireHKDF {
    static let salt: [UInt8] = Array("baton-handoff".utf8)

    static func derive(_ ikm: [UInt8], salt: [UInt8] = salt, info: [UInt8]) -> [UInt8] {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
    }
}
