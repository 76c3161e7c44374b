import Crypto
import Foundation

/// The frames of a pairing (docs/PROTOCOL.md, section 15): what each one does in each phase,
/// and the sealing of the last two.
extension PairingMachine {
    mutating func handle(_ type: Pairing.FrameType, frame: [UInt8], body: [UInt8]) -> [PairingAction] {
        if type == .abort {
            let reason = body.first ?? 0
            // A joiner whose COMMIT got ABORT 03: what a version-1 sharer does with a version-2 COMMIT.
            let refused = phase == .waitingPublic && reason == 3
            phase = .done
            return [.failed(reason == 1 ? .declinedThere : refused ? .commitRefused : .otherSideAborted(reason))]
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
        case (false, .waitingKey, .key, 97):
            guard proved(Array(plain[33...]), label: Pairing.keyLabel) else { return fail(.identityNotProved) }
            phase = .waitingStore
            return [.storeKey(GroupKey(bytes: Array(plain[1..<33]))!)]
        case (true, .waitingStored, .stored, 1):
            phase = .done
            return [.paired(peerName: peerName, peer: peerIdentity!)]
        default:
            return fail(.protocolError("the other side sent a sealed message out of turn"))
        }
    }

    /// Whether `signature` is the other side's over `label` ‖ SHA-256(T).
    func proved(_ signature: [UInt8], label: [UInt8]) -> Bool {
        peerIdentity?.isValidSignature(signature, of: Pairing.signed(label, transcript: transcript)) ?? false
    }

    mutating func sendKey() -> [PairingAction] {
        guard case .sharer(let groupKey) = role else { return [] }
        phase = .waitingStored
        let signature = identity.sign(Pairing.signed(Pairing.keyLabel, transcript: transcript))
        return [.send(seal([Pairing.SealedType.key.rawValue] + groupKey.bytes + signature))]
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
