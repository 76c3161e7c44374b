import Crypto
import FoundationEssentials

/// One side of a pairing, with no I/O: bytes and answers in, actions out (docs/PROTOCOL.md, section 15).
public struct PairingMachine: Sendable {
    public enum Role: Sendable { case sharer(GroupKey), joiner }

    enum Phase: Equatable {
        case waitingCommit  // sharer
        case waitingPublic  // joiner
        case waitingReveal  // sharer
        case comparing  // both: code shown
        case waitingKey  // joiner: confirmed, awaiting KEY
        case waitingStore  // joiner: KEY given to the driver
        case waitingStored  // sharer: KEY sent
        case done
    }

    let role: Role
    let name: [UInt8]
    /// This machine's identity: sent in PUBLIC or REVEAL, and signing the transcript.
    let identity: DeviceIdentity
    /// The other side's identity, from PUBLIC (joiner) or a REVEAL that matched its commitment (sharer).
    var peerIdentity: PublicIdentity?
    /// Kept as bytes: the swift-crypto key type is not declared `Sendable`, and this machine is.
    let privateKeyBytes: [UInt8]
    let nonce: [UInt8]
    var phase: Phase
    var buffer: [UInt8] = []
    var transcript: [UInt8] = []
    var peerName = ""
    var peerCommitment: [UInt8] = []
    var keys: Pairing.Keys?
    var sendCounter: UInt64 = 0
    var receiveCounter: UInt64 = 0
    var confirmedHere = false
    var confirmedThere = false
    /// Sharer: the statements it keeps, sent before KEY (section 17, "Introductions").
    let statements: [[UInt8]]
    /// When statements made here say they were made; fixed in vectors.
    let clock: @Sendable () -> Date
    /// Joiner: the STATEMENT frames received, in order.
    var receivedStatements: [[UInt8]] = []
    /// The statements this side keeps once paired (see `PairingAction.paired`).
    var keptStatements: [[UInt8]] = []
    /// Joiner: the key of a KEY frame, handed to the driver once the bytes read with it are done.
    var keyToStore: GroupKey?

    /// `privateKey` (the ephemeral X25519 key) and `nonce` are fresh random values in use; tests fix them.
    public init(
        role: Role, name: String, identity: DeviceIdentity, statements: [[UInt8]] = [],
        privateKey: [UInt8]? = nil,
        nonce: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) },
        clock: @escaping @Sendable () -> Date
    ) {
        precondition(nonce.count == 32, "a pairing nonce is 32 bytes")
        self.role = role
        self.identity = identity
        var bytes = Array(name.utf8.prefix(Pairing.maximumNameBytes))
        while String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        self.name = bytes.isEmpty ? Array("baton".utf8) : bytes
        self.privateKeyBytes = privateKey ?? Array(Curve25519.KeyAgreement.PrivateKey().rawRepresentation)
        self.nonce = nonce
        self.statements = statements
        self.clock = clock
        if case .sharer = role { phase = .waitingCommit } else { phase = .waitingPublic }
    }

    public var isDone: Bool { phase == .done }
    var isSharer: Bool { if case .sharer = role { true } else { false } }
    var privateKey: Curve25519.KeyAgreement.PrivateKey {
        try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKeyBytes)
    }
    var publicKey: [UInt8] { Array(privateKey.publicKey.rawRepresentation) }

    /// Statements a sharer sends at most (each in its own frame): as many as a list keeps.
    public static let maximumStatements = DeviceRoster.maximumStatements

    /// The joiner's first frame, COMMIT; the sharer sends nothing first.
    public mutating func start() -> [PairingAction] {
        guard !isSharer, transcript.isEmpty else { return [] }
        let commitment = Pairing.commitment(publicKey: publicKey, nonce: nonce, identity: identity.publicIdentity)
        let frame = Pairing.frame(.commit, [Pairing.version] + commitment + name)
        transcript += frame
        return [.send(frame)]
    }

    /// Bytes from the connection, in any pieces.
    public mutating func received(_ bytes: [UInt8]) -> [PairingAction] {
        buffer += bytes
        var actions: [PairingAction] = []
        while phase != .done, buffer.count >= 3 {
            let length = Int(buffer[1]) << 8 | Int(buffer[2])
            guard let type = Pairing.FrameType(rawValue: buffer[0]), (1...Pairing.maximumBody).contains(length) else {
                return actions + fail(.protocolError("the other side sent something that is not a pairing frame"))
            }
            guard buffer.count >= 3 + length else { break }
            let frame = Array(buffer[0..<(3 + length)])
            buffer.removeFirst(3 + length)
            actions += handle(type, frame: frame, body: Array(frame[3...]))
        }
        // KEY is the sharer's last frame until STORED: anything read with it aborts, and the
        // key is handed to the driver only when nothing came after it.
        if phase == .waitingStore, let key = keyToStore {
            guard buffer.isEmpty else { return actions + fail(.protocolError("the other side sent a frame out of turn")) }
            keyToStore = nil
            actions.append(.storeKey(key, statements: keptStatements))
        }
        return actions
    }

    /// The person's answer to "Same code on the other screen?".
    public mutating func answered(_ yes: Bool) -> [PairingAction] {
        guard phase == .comparing, !confirmedHere else { return [] }
        guard yes else { return fail(.declinedHere) }
        confirmedHere = true
        if isSharer {
            return confirmedThere ? sendKey() : []
        }
        phase = .waitingKey
        let signature = identity.sign(Pairing.signed(Pairing.confirmLabel, transcript: transcript))
        return [.send(seal([Pairing.SealedType.confirm.rawValue] + signature))]
    }

    /// Ends the pairing before any key moves because a machine in it was removed from the group
    /// (`.otherRemoved` or `.thisRemoved`): the other side is told why (ABORT 05 or 06).
    public mutating func refuse(_ failure: PairingFailure) -> [PairingAction] {
        guard phase != .done, phase != .waitingStore, phase != .waitingStored else { return [] }
        return fail(failure)
    }

    /// Joiner: the driver stored the key (or could not: then `problem` says why).
    public mutating func stored(problem: String? = nil) -> [PairingAction] {
        guard phase == .waitingStore else { return [] }
        if let problem { return fail(.protocolError("the key could not be stored: \(problem)")) }
        phase = .done
        return [
            .send(seal([Pairing.SealedType.stored.rawValue])),
            .paired(peerName: peerName, peer: peerIdentity!, statements: keptStatements),
        ]
    }

    /// A HELLO with another pairing id, or a second connection, from the address `from` when known.
    public mutating func otherPairingSeen(from: String? = nil) -> [PairingAction] {
        guard phase != .done, phase != .waitingStore, phase != .waitingStored else { return [] }
        return fail(.anotherPairing(from: from))
    }

    public mutating func timedOut() -> [PairingAction] {
        guard phase != .done else { return [] }
        return fail(.timedOut)
    }

    public mutating func connectionClosed() -> [PairingAction] {
        guard phase != .done else { return [] }
        phase = .done
        return [.failed(.connectionLost)]
    }
}
