import Crypto
import FoundationEssentials

/// The frames of a pairing (docs/PROTOCOL.md, section 15): what each one does in each phase,
/// and the sealing of the last two.
extension PairingMachine {
    mutating func handle(_ type: Pairing.FrameType, frame: [UInt8], body: [UInt8]) -> [PairingAction] {
        if type == .abort {
            let reason = body.first ?? 0
            // A joiner whose COMMIT got ABORT 03: what a version-1 sharer does with a version-2 COMMIT.
            let refused = phase == .waitingPublic && reason == 3
            phase = .done
            let failure: PairingFailure = switch reason {
            case 1: .declinedThere
            case Pairing.abortRemovedThere: .removedThere
            case Pairing.abortRemovedHere: .otherRemovedThere
            default: refused ? .commitRefused : .otherSideAborted(reason)
            }
            return [.failed(failure)]
        }
        switch (phase, type) {
        case (.waitingCommit, .commit):
            guard body[0] == Pairing.version else { return fail(.otherVersion(body[0])) }
            guard body.count >= 34, let name = Self.name(body[33...]) else {
                return fail(.protocolError("the other side's COMMIT is malformed"))
            }
            peerCommitment = Array(body[1..<33])
            peerName = name
            transcript += frame
            let reply = Pairing.frame(
                .publicKey, [Pairing.version] + publicKey + nonce + identity.publicIdentity.bytes + self.name)
            transcript += reply
            phase = .waitingReveal
            return [.send(reply)]
        case (.waitingPublic, .publicKey):
            guard body[0] == Pairing.version else { return fail(.otherVersion(body[0])) }
            guard body.count >= 130, let name = Self.name(body[129...]),
                let peer = PublicIdentity(bytes: Array(body[65..<129]))
            else {
                return fail(.protocolError("the other side's PUBLIC is malformed"))
            }
            guard peer != identity.publicIdentity else { return fail(.sameDevice) }
            peerName = name
            peerIdentity = peer
            transcript += frame
            let reveal = Pairing.frame(.reveal, publicKey + nonce + identity.publicIdentity.bytes)
            transcript += reveal
            guard agree(peerPublicKey: Array(body[1..<33])) else {
                return fail(.protocolError("the other side's public key is not usable"))
            }
            phase = .comparing
            return [.send(reveal), .showCode(keys!.code, peerName: peerName, peer: peer)]
        case (.waitingReveal, .reveal):
            guard body.count == 128, let peer = PublicIdentity(bytes: Array(body[64..<128])) else {
                return fail(.protocolError("the other side's REVEAL is malformed"))
            }
            let commitment = Pairing.commitment(publicKey: Array(body[0..<32]), nonce: Array(body[32..<64]), identity: peer)
            guard commitment == peerCommitment else { return fail(.commitmentMismatch) }
            guard peer != identity.publicIdentity else { return fail(.sameDevice) }
            peerIdentity = peer
            transcript += frame
            guard agree(peerPublicKey: Array(body[0..<32])) else {
                return fail(.protocolError("the other side's public key is not usable"))
            }
            phase = .comparing
            return [.showCode(keys!.code, peerName: peerName, peer: peer)]
        case (.comparing, .sealed), (.waitingKey, .sealed), (.waitingStored, .sealed):
            guard let plain = open(frame) else {
                return fail(.protocolError("a sealed frame did not open (the codes differ, or someone is interfering)"))
            }
            return handleSealed(plain)
        default:
            return fail(.protocolError("the other side sent a frame out of turn"))
        }
    }

    mutating func handleSealed(_ plain: [UInt8]) -> [PairingAction] {
        let type = plain.first.flatMap(Pairing.SealedType.init(rawValue:))
        switch (isSharer, phase, type, plain.count) {
        case (true, .comparing, .confirm, 65) where !confirmedThere:
            guard proved(Array(plain[1...]), label: Pairing.confirmLabel) else { return fail(.identityNotProved) }
            confirmedThere = true
            return confirmedHere ? sendKey() : []
        case (false, .waitingKey, .statement, _):
            guard Statement.sizes.contains(plain.count - 1), receivedStatements.count < Self.maximumStatements + 1 else {
                return fail(.protocolError("the other side sent a statement that is too large, or too many"))
            }
            receivedStatements.append(Array(plain[1...]))
            return []
        case (false, .waitingKey, .key, 97):
            guard proved(Array(plain[33...]), label: Pairing.keyLabel) else { return fail(.identityNotProved) }
            phase = .waitingStore
            keyToStore = GroupKey(bytes: Array(plain[1..<33]))!
            keptStatements = joinerStatements()
            return []
        case (true, .waitingStored, .stored, 1):
            phase = .done
            return [.paired(peerName: peerName, peer: peerIdentity!, statements: keptStatements)]
        default:
            return fail(.protocolError("the other side sent a sealed message out of turn"))
        }
    }

    /// Whether `signature` is the other side's over `label` ‖ SHA-256(T).
    func proved(_ signature: [UInt8], label: [UInt8]) -> Bool {
        peerIdentity?.isValidSignature(signature, of: Pairing.signed(label, transcript: transcript)) ?? false
    }

    /// The sharer's last frames: every statement it keeps and its introduction of the joiner,
    /// one STATEMENT each, then KEY.
    mutating func sendKey() -> [PairingAction] {
        guard case .sharer(let groupKey) = role, let joiner = peerIdentity else { return [] }
        phase = .waitingStored
        let introduction = Statement(.introduce(identity: joiner, name: peerName), by: identity, at: clock()).bytes
        keptStatements = [introduction]
        var actions: [PairingAction] = []
        for statement in statements.prefix(Self.maximumStatements) + [introduction] {
            actions.append(.send(seal([Pairing.SealedType.statement.rawValue] + statement)))
        }
        let signature = identity.sign(Pairing.signed(Pairing.keyLabel, transcript: transcript))
        return actions + [.send(seal([Pairing.SealedType.key.rawValue] + groupKey.bytes + signature))]
    }

    /// Joiner, on KEY: the statements the sharer sent that a list with the sharer as a root
    /// takes (one that does not verify, or whose issuer stays unknown, is not kept), and this
    /// side's introduction of the sharer.
    func joinerStatements() -> [[UInt8]] {
        guard let sharer = peerIdentity else { return [] }
        var roster = DeviceRoster(
            own: identity.publicIdentity, name: String(decoding: name, as: UTF8.self), paired: [(sharer, peerName)])
        roster.take(all: receivedStatements)
        roster.take(Statement(.introduce(identity: sharer, name: peerName), by: identity, at: clock()).bytes)
        return roster.statements.map(\.bytes)
    }

    mutating func agree(peerPublicKey: [UInt8]) -> Bool {
        guard let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        else { return false }
        let bytes = secret.withUnsafeBytes { Array($0) }
        guard bytes.contains(where: { $0 != 0 }) else { return false }
        keys = Pairing.Keys(sharedSecret: bytes, transcript: transcript)
        return true
    }

    mutating func seal(_ plain: [UInt8]) -> [UInt8] {
        let key = isSharer ? keys!.sharer : keys!.joiner
        defer { sendCounter += 1 }
        return Pairing.sealedFrame(plain, key: key, counter: sendCounter)
    }

    mutating func open(_ frame: [UInt8]) -> [UInt8]? {
        let key = isSharer ? keys!.joiner : keys!.sharer
        defer { receiveCounter += 1 }
        return Pairing.open(Array(frame[3...]), header: Array(frame[0..<3]), key: key, counter: receiveCounter)
    }

    mutating func fail(_ failure: PairingFailure) -> [PairingAction] {
        phase = .done
        var actions: [PairingAction] = []
        if let reason = failure.abortReason { actions.append(.send(Pairing.frame(.abort, [reason]))) }
        return actions + [.failed(failure)]
    }

    static func name(_ bytes: ArraySlice<UInt8>) -> String? {
        guard (1...Pairing.maximumNameBytes).contains(bytes.count) else { return nil }
        return String(validating: Array(bytes), as: UTF8.self)
    }
}
