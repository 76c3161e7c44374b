import FoundationEssentials
import Synchronization
import HandoffWire

/// Who this peer is and whom it hears (docs/PROTOCOL.md, sections 3, 7 and 17): its device
/// identity, the group keys it holds (current and previous), and its list of devices. Shared by
/// the receive gate on the transport's thread and the center on the main actor, and by both
/// ends of the state stream, so it is a locked reference.
///
/// Statements heard in DEVICES datagrams change the list and, through a key statement for this
/// device, the group key; `taking(_:)` says what changed so that the program can store it.
/// Another process on the machine (`baton devices remove`, `baton key --new`) changes the files
/// instead; the program then gives the new picture to `replace(roster:keys:)`.
public final class Membership: Sendable {
    /// What a change of the list or keys left behind.
    public struct Change: Equatable, Sendable {
        /// Statements were taken (the list, what is removed, or what is kept changed).
        public var statements: Bool
        /// The group key changed: the new current key (the old one is now the previous).
        public var newKey: GroupKey?

        public var isEmpty: Bool { !statements && newKey == nil }
    }

    private struct State {
        var roster: DeviceRoster
        var keys: GroupKeys
    }

    public let identity: DeviceIdentity
    /// The sender keys worked out so far, kept across key changes (each is keyed by its group key).
    let senderKeys = SenderKeys()
    private let state: Mutex<State>

    public init(identity: DeviceIdentity, keys: GroupKeys, roster: DeviceRoster) {
        precondition(roster.own == identity.publicIdentity, "the roster is this device's")
        self.identity = identity
        state = Mutex(State(roster: roster, keys: keys))
    }

    /// One device alone in its group: what a program gets before it has paired with anyone, and
    /// what tests use when every peer is one device (each peer is still its own sender).
    public convenience init(identity: DeviceIdentity, groupKey: GroupKey, name: String = "this device") {
        self.init(
            identity: identity, keys: GroupKeys(current: groupKey),
            roster: DeviceRoster(own: identity.publicIdentity, name: name))
    }

    /// The keys that seal and open datagrams now.
    public var keys: GroupKeys { state.withLock { $0.keys } }

    /// The list of devices now.
    public var roster: DeviceRoster { state.withLock { $0.roster } }

    /// A codec for the keys held now, sharing the sender-key cache.
    func codec(allowedClockSkew: TimeInterval) -> DatagramCodec {
        DatagramCodec(keys: keys, allowedClockSkew: allowedClockSkew, senderKeys: senderKeys)
    }

    /// The listed, not removed device whose tag a sender id carries (step 6).
    public func device(for tag: DeviceTag) -> PublicIdentity? {
        state.withLock { $0.roster.identity(for: tag) }
    }

    /// The DEVICES messages for every statement kept, packed under `limit`.
    func devicesMessages(limit: Int, sentAt: Date) -> [HandoffMessage] {
        state.withLock { $0.roster.devicesMessages(limit: limit, sentAt: sentAt) }
    }

    /// The digest of the statements kept, as DEVICES carry it.
    var digest: [UInt8] { state.withLock { $0.roster.digest } }

    /// Takes the statements of a DEVICES datagram (or of a pairing), then switches to a new
    /// group key when a key statement for this device now wins.
    @discardableResult
    public func taking(_ statements: [[UInt8]]) -> Change {
        state.withLock { s in
            let taken = s.roster.take(all: statements) > 0
            var change = Change(statements: taken, newKey: nil)
            if taken, let key = s.roster.keyToSwitchTo(current: s.keys.currentID, identity: identity) {
                s.keys = s.keys.changed(to: key)
                change.newKey = key
            }
            return change
        }
    }

    /// Who this process is on the state stream: this device, with `senderID`.
    public func streamIdentity(senderID: SenderID) -> StreamIdentity {
        StreamIdentity(device: identity, senderID: senderID)
    }

    /// Whom the state stream's server serves: the devices listed now, with the keys held now.
    public var streamTrust: StreamTrust {
        StreamTrust(
            currentGroupKeys: { [weak self] in
                guard let keys = self?.keys else { return [] }
                return [keys.current] + (keys.previous.map { [$0] } ?? [])
            },
            listedDevice: { [weak self] tag in
                DeviceTag(bytes: tag).flatMap { self?.device(for: $0) }
            })
    }

    /// Puts in place a list and keys read again from the files another process changed.
    public func replace(roster: DeviceRoster, keys: GroupKeys) {
        precondition(roster.own == identity.publicIdentity, "the roster is this device's")
        state.withLock { s in
            s.roster = roster
            s.keys = keys
        }
    }
}
