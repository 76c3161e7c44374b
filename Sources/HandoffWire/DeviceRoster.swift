import FoundationEssentials

/// A device's list (docs/PROTOCOL.md, sections 3 and 17): the *roots* (this device and the
/// devices it paired with) and the statements it took, and what they make: the listed devices
/// by tag, the removed ones, the statements kept aside until their issuer is listed, and the
/// group key this device should switch to. A value with no I/O and no clock.
public struct DeviceRoster: Equatable, Sendable {
    /// Statements kept, at most.
    public static let maximumStatements = 1_024
    /// Statements kept aside until their issuer is listed, at most.
    public static let maximumPending = 64

    /// A device on the list.
    public struct Device: Equatable, Sendable {
        public let identity: PublicIdentity
        /// The name its owner gave it at pairing, as the pairing or the introduction said.
        public let name: String
        /// The issuer of the introduction that listed it; nil for a root.
        public let introducedBy: [UInt8]?

        public var deviceID: [UInt8] { identity.deviceID.bytes }
        public var tag: DeviceTag { DeviceTag(identity.deviceID) }
    }

    /// What became of one statement offered to `take`.
    public enum Outcome: Equatable, Sendable {
        /// Taken and kept (it may list, remove or re-key nothing new).
        case taken
        /// Already kept, or already kept aside.
        case known
        /// Its issuer is not listed yet: kept aside, tried again when the list grows.
        case pending
        /// Refused: unreadable, a signature that is not the issuer's, an issuer that was removed,
        /// or the store is full.
        case refused(StatementError?)
    }

    /// This device's identity.
    public let own: PublicIdentity
    /// Every device listed and not removed, by device id.
    public private(set) var listed: [[UInt8]: Device] = [:]
    /// Every device ever listed, removed ones too: what statements are checked against.
    private var known: [[UInt8]: Device] = [:]
    /// Device ids removed for good.
    public private(set) var removed: Set<[UInt8]> = []
    /// Statements taken, in the order taken (at most `maximumStatements`).
    public private(set) var statements: [Statement] = []
    /// Statements kept aside, oldest first (at most `maximumPending`).
    public private(set) var pending: [Statement] = []
    private var keptBytes: Set<[UInt8]> = []
    private var byTag: [DeviceTag: [UInt8]] = [:]

    /// A list with this device and the devices it paired with as roots.
    public init(own: PublicIdentity, name: String, paired: [(identity: PublicIdentity, name: String)] = []) {
        self.own = own
        list(Device(identity: own, name: name, introducedBy: nil))
        for device in paired { list(Device(identity: device.identity, name: device.name, introducedBy: nil)) }
    }

    /// Adds a device paired with (a root) and tries the statements kept aside again.
    public mutating func addPaired(_ identity: PublicIdentity, name: String) {
        guard !removed.contains(identity.deviceID.bytes) else { return }
        if list(Device(identity: identity, name: name, introducedBy: nil)) { retryPending() }
    }

    /// The listed, not removed device with this tag: the identity that must have signed a datagram
    /// whose sender id carries it (section 7, steps 6 and 10).
    public func identity(for tag: DeviceTag) -> PublicIdentity? {
        byTag[tag].flatMap { listed[$0]?.identity }
    }

    /// The `remove` statement that removed this device, when one was taken: a removed device
    /// still hears the group under the old key, but no one hears it (section 17).
    public var ownRemoval: Statement? {
        let id = own.deviceID.bytes
        return statements.first { $0.content == .remove(device: id) }
    }

    /// The name a device was listed under, removed or not; nil for a device never listed.
    public func name(of deviceID: [UInt8]) -> String? {
        known[deviceID]?.name
    }

    /// Why a pairing with `peer` must not go on: this device was removed, or `peer` was (a removal
    /// is for good, section 17); nil when neither was.
    public func pairingRefusal(with peer: PublicIdentity, name: String) -> PairingFailure? {
        if ownRemoval != nil { return .thisRemoved }
        let id = peer.deviceID.bytes
        guard removed.contains(id) else { return nil }
        return .otherRemoved(name: self.name(of: id) ?? name)
    }

    /// The DEVICES `digest` of the statements kept.
    public var digest: [UInt8] { Statement.setDigest(statements.map(\.bytes)) }

    /// Takes one statement, then the statements kept aside that the list now lets in.
    @discardableResult
    public mutating func take(_ bytes: [UInt8]) -> Outcome {
        let statement: Statement
        do {
            statement = try Statement(parsing: bytes)
        } catch {
            return .refused(error)
        }
        let outcome = take(statement)
        if outcome == .taken { retryPending() }
        return outcome
    }

    /// Takes every statement of a DEVICES datagram; says how many were taken (those kept aside
    /// and let in by them included).
    @discardableResult
    public mutating func take(all list: [[UInt8]]) -> Int {
        let before = statements.count
        for bytes in list { take(bytes) }
        return statements.count - before
    }

    private mutating func take(_ s: Statement) -> Outcome {
        if keptBytes.contains(s.bytes) || pending.contains(where: { $0.bytes == s.bytes }) { return .known }
        guard let issuer = known[s.by] else {
            pending.append(s)
            if pending.count > Self.maximumPending { pending.removeFirst(pending.count - Self.maximumPending) }
            return .pending
        }
        guard s.isSigned(by: issuer.identity) else { return .refused(.badSignature) }
        if removed.contains(s.by) {
            // A removed issuer's statements no longer count, but for a removal of a device that
            // removed it: two removals that name each other both hold, in whichever order they come.
            guard case .remove(let device) = s.content, removedBy(device, s.by) else { return .refused(nil) }
        }
        guard statements.count < Self.maximumStatements else { return .refused(nil) }
        statements.append(s)
        keptBytes.insert(s.bytes)
        switch s.content {
        case .introduce(let identity, let name):
            if !removed.contains(identity.deviceID.bytes) {
                list(Device(identity: identity, name: name, introducedBy: s.by))
            }
        case .remove(let device):
            removed.insert(device)
            if let gone = listed.removeValue(forKey: device) { byTag[gone.tag] = nil }
            pending.removeAll { $0.by == device }
        case .key:
            break
        }
        return .taken
    }

    /// Whether a removal by `issuer` of `device` was taken.
    private func removedBy(_ issuer: [UInt8], _ device: [UInt8]) -> Bool {
        statements.contains { $0.by == issuer && $0.content == .remove(device: device) }
    }

    /// Lists a device unless it is listed or removed, or its tag is another listed device's; true when it was listed.
    @discardableResult
    private mutating func list(_ device: Device) -> Bool {
        let id = device.deviceID
        guard listed[id] == nil, !removed.contains(id), byTag[device.tag] == nil else { return false }
        listed[id] = device
        byTag[device.tag] = id
        if known[id] == nil { known[id] = device }
        return true
    }

    private mutating func retryPending() {
        var progress = true
        while progress {
            progress = false
            for s in pending where known[s.by] != nil {
                pending.removeAll { $0.bytes == s.bytes }
                if take(s) == .taken { progress = true }
            }
        }
    }

    /// The key statement that decides the group key: the one with the latest `at` among all
    /// key statements taken, ties to the greater `keyID` (section 17, "key").
    public var winningKeyChange: (at: Date, keyID: KeyID)? {
        statements.compactMap { s -> (Date, KeyID)? in
            if case .key(_, let keyID, _, _) = s.content { (s.at, keyID) } else { nil }
        }.max { a, b in a.0 != b.0 ? a.0 < b.0 : a.1 < b.1 }
    }

    /// The group key this device should switch to, given the key id of its current key: the key
    /// of the winning change when that change has a statement for this device that opens with
    /// `identity` and its key is not already current; nil otherwise.
    public func keyToSwitchTo(current: KeyID, identity: DeviceIdentity) -> GroupKey? {
        guard let winner = winningKeyChange, winner.keyID != current else { return nil }
        let ownID = own.deviceID.bytes
        for s in statements where s.at == winner.at {
            guard case .key(let to, let keyID, let ephemeral, let sealed) = s.content, to == ownID, keyID == winner.keyID
            else { continue }
            if let key = GroupKeySeal.open(sealed: sealed, ephemeral: ephemeral, keyID: keyID, with: identity) {
                return key
            }
        }
        return nil
    }
}

extension DeviceRoster {
    /// The DEVICES messages that carry `statements`, as many to a datagram as fit `limit` bytes
    /// (header, signature and tag included), in the order given, each with the set's `digest`.
    /// A statement too large to fit the limit with nothing else goes alone.
    public static func devicesMessages(
        _ statements: [[UInt8]], digest: [UInt8], limit: Int = 1_200, sentAt: Date
    ) -> [HandoffMessage] {
        func size(_ batch: [[UInt8]]) -> Int {
            DatagramHeader.overhead
                + DatagramCodec.plaintext(.devices(statements: batch, digest: digest), sentAt: sentAt).count
        }
        var out: [HandoffMessage] = []
        var batch: [[UInt8]] = []
        for statement in statements {
            if !batch.isEmpty, size(batch + [statement]) > limit {
                out.append(.devices(statements: batch, digest: digest))
                batch = []
            }
            batch.append(statement)
        }
        if !batch.isEmpty || out.isEmpty { out.append(.devices(statements: batch, digest: digest)) }
        return out
    }

    /// The DEVICES messages for every statement kept.
    public func devicesMessages(limit: Int = 1_200, sentAt: Date) -> [HandoffMessage] {
        Self.devicesMessages(statements.map(\.bytes), digest: digest, limit: limit, sentAt: sentAt)
    }
}
