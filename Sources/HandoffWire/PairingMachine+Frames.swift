import Crypto
import Foundation

/// The frames of a pairing (docs/PROTOCOL.md, section 15): what each one does in each phase,
/// and the sealing of the last two.
extension PairingMachine {
    mutating func handle(_ type: Pairing.FrameType, frame: [UInt8], body: [UInt8]) -> [PairingAction] {
        if type == .abort {
            phase = .done
            let reason = body.first ?? 0
            return [.failed(reason == 1 ? .declinedThere : .otherSideAborted(reason))]
        }
        switch (phase, type) {
        case (.waitingCommit, .commit):
            guard body.count >= 34, body[0] == Pairing.version, let name = Self.name(body[33...]) else {
                return fail(.protocolError("the other side's COMMIT is malformed"))
            }
            peerCommitment = Array(body[1..<33])
            peerName = name
            transcript += frame
            let reply = Pairing.frame(.publicKey, [Pairing.version] + publicKey + nonce + self.name)
            transcript += reply
            phase = .waitingReveal
            return [.send(reply)]
        case (.waitingPublic, .publicKey):
            guard body.count >= 66, body[0] == Pairing.version, let name = Self.name(body[65...]) else {
                return fail(.protocolError("the other side's PUBLIC is malformed"))
            }
            peerName = name
            transcript += frame
            let reveal = Pairing.frame(.reveal, publicKey + nonce)
            transcript += reveal
            guard agree(peerPublicKey: Array(body[1..<33])) else {
                return fail(.protocolError("the other side's public key is not usable"))
            }
            phase = .comparing
            return [.send(reveal), .showCode(keys!.code, peerName: peerName)]
        case (.waitingReveal, .reveal):
            guard body.count == 64 else { return fail(.protocolError("the other side's REVEAL is malformed")) }
            guard Pairing.commitment(publicKey: Array(body[0..<32]), nonce: Array(body[32..<64])) == peerCommitment
            else { return fail(.commitmentMismatch) }
            transcript += frame
            guard agree(peerPublicKey: Array(body[0..<32])) else {
                return fail(.protocolError("the other side's public key is not usable"))
            }
            phase = .comparing
            return [.showCode(keys!.code, peerName: peerName)]
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
        case (true, .comparing, .confirm, 1) where !confirmedThere:
            confirmedThere = true
            return confirmedHere ? sendKey() : []
        case (false, .waitingKey, .key, 33):
            phase = .waitingStore
            return [.storeKey(GroupKey(bytes: Array(plain[1...]))!)]
        case (true, .waitingStored, .stored, 1):
            phase = .done
            return [.paired(peerName: peerName)]
        default:
            return fail(.protocolError("the other side sent a sealed message out of turn"))
        }
    }

    mutating func sendKey() -> [PairingAction] {
        guard case .sharer(let groupKey) = role else { return [] }
        phase = .waitingStored
        return [.send(seal([Pairing.SealedType.key.rawValue] + groupKey.bytes))]
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
