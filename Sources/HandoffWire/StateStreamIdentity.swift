import Crypto

/// Who one end of a state stream is: its device's identity, which signs the handshake, and
/// this process's sender id (the device's tag ‖ the process's instance), which the hellos carry.
public struct StreamIdentity: Sendable {
    public let device: DeviceIdentity
    public let senderID: SenderID

    /// `senderID` must begin with `device`'s tag (the first 8 bytes of its device id).
    public init(device: DeviceIdentity, senderID: SenderID) {
        precondition(
            senderID.bytes.prefix(StateStream.deviceTagLength)
                == device.publicIdentity.deviceID.bytes.prefix(StateStream.deviceTagLength),
            "a sender id begins with its device's tag")
        self.device = device
        self.senderID = senderID
    }

    /// The identity of `device` in the process whose instance is `instance` (8 bytes).
    public init(device: DeviceIdentity, instance: [UInt8]) {
        precondition(instance.count == StateStream.senderIDLength - StateStream.deviceTagLength, "an instance is 8 bytes")
        let tag = device.publicIdentity.deviceID.bytes.prefix(StateStream.deviceTagLength)
        self.init(device: device, senderID: SenderID(bytes: Array(tag) + instance)!)
    }

    /// What a client fetching from this end expects of it.
    public var asSource: StreamSource { StreamSource(senderID: senderID, identity: device.publicIdentity) }
}

/// The device a client fetches from: the sender id of the OFFER it is fetching and that
/// device's public identity, from the client's list. The ServerHello must carry exactly this
/// sender id and be signed with this identity's signing key.
public struct StreamSource: Equatable, Sendable {
    public let senderID: SenderID
    public let identity: PublicIdentity

    public init(senderID: SenderID, identity: PublicIdentity) {
        self.senderID = senderID
        self.identity = identity
    }
}

/// What a server accepts: the group keys it holds and the devices it serves.
public struct StreamTrust: Sendable {
    /// The current group key, then the previous one if the device keeps it; a ClientHello's
    /// key id picks one, and an id that names neither closes the connection. Asked at each
    /// connection, so that a key change reaches a server that is already running.
    public var groupKeys: [GroupKey] { keys() }
    private let keys: @Sendable () -> [GroupKey]
    /// The public identity of the listed, not removed, device whose tag (the first 8 bytes of
    /// a sender id) is given; nil for any other tag, which closes the connection.
    public let listedDevice: @Sendable (_ tag: [UInt8]) -> PublicIdentity?

    public init(groupKeys: [GroupKey], listedDevice: @escaping @Sendable (_ tag: [UInt8]) -> PublicIdentity?) {
        precondition(!groupKeys.isEmpty, "a server holds at least its current group key")
        self.init(currentGroupKeys: { groupKeys }, listedDevice: listedDevice)
    }

    /// Trust that follows a list and keys that change while the server runs: both are asked
    /// at each connection.
    public init(
        currentGroupKeys: @escaping @Sendable () -> [GroupKey],
        listedDevice: @escaping @Sendable (_ tag: [UInt8]) -> PublicIdentity?
    ) {
        keys = currentGroupKeys
        self.listedDevice = listedDevice
    }

    /// Trust in exactly `devices` (by their tags) with `groupKeys`.
    public init(groupKeys: [GroupKey], devices: [PublicIdentity]) {
        let byTag = Dictionary(
            devices.map { (Array($0.deviceID.bytes.prefix(StateStream.deviceTagLength)), $0) },
            uniquingKeysWith: { first, _ in first })
        self.init(groupKeys: groupKeys, listedDevice: { byTag[$0] })
    }

    /// The group key a ClientHello's key id names, or nil.
    func groupKey(keyID: [UInt8]) -> GroupKey? {
        groupKeys.first { StateStreamHandshake.keyID(of: $0) == keyID }
    }
}

// MARK: - For tests: one device per group key

/// *One device shared by every holder of a group key*: its seed is derived from the group key, so
/// that tests, fuzz targets and their fixed vectors can make peers that hear each other without
/// pairing them. Baton's programs never use it: they are their own `DeviceIdentity`, with the
/// devices their list holds. A device made this way grants nothing by itself either: a peer hears
/// only the devices on its list, and no list holds it unless a test puts it there.
extension StreamIdentity {
    /// The shared device of `groupKey`, with the instance `00…00` (for tests; see above).
    public static func sharedByGroupKey(_ groupKey: GroupKey) -> StreamIdentity {
        StreamIdentity(device: sharedDevice(groupKey), instance: Array(repeating: 0, count: 8))
    }

    /// The shared device's seed: HKDF-SHA256(IKM = the group key, salt = `baton-handoff`,
    /// info = `interim shared stream device`, 32 bytes). Not a protocol value: it only lets two
    /// ends that know nothing but the group key be one device (for tests; see above).
    static func sharedDevice(_ groupKey: GroupKey) -> DeviceIdentity {
        let seed = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: groupKey.bytes), salt: Array("baton-handoff".utf8),
            info: Array("interim shared stream device".utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        return DeviceIdentity(seed: seed)!
    }
}

extension StreamSource {
    /// The shared device of `groupKey` as a source (for tests; see `StreamIdentity.sharedByGroupKey`).
    public static func sharedByGroupKey(_ groupKey: GroupKey) -> StreamSource {
        StreamIdentity.sharedByGroupKey(groupKey).asSource
    }
}

extension StreamTrust {
    /// `groupKey` alone, listing only its shared device (for tests; see `StreamIdentity.sharedByGroupKey`).
    public static func sharedByGroupKey(_ groupKey: GroupKey) -> StreamTrust {
        StreamTrust(groupKeys: [groupKey], devices: [StreamIdentity.sharedByGroupKey(groupKey).device.publicIdentity])
    }
}
