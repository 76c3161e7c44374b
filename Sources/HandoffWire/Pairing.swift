import Crypto
import Foundation

/// `baton pair`'s wire format and derivations (docs/PROTOCOL.md, section 15).
public enum Pairing {
    /// `BTNP`, the first bytes of a HELLO.
    public static let magic: [UInt8] = Array("BTNP".utf8)
    public static let version: UInt8 = 1
    /// UDP (HELLO) and TCP (the exchange) port.
    public static let defaultPort = 47790
    /// The whole pairing, answers included.
    public static let defaultTimeout: Double = 120
    public static let helloInterval: Double = 0.25
    public static let helloLength = 24
    public static let maximumBody = 512
    public static let maximumNameBytes = 64
    static let commitLabel: [UInt8] = Array("baton pair v1 commit".utf8)

    /// A HELLO: magic, version, type 0, the TCP port and the pairing id (24 bytes).
    public static func hello(port: UInt16, pairingID: [UInt8]) -> [UInt8] {
        precondition(pairingID.count == 16, "a pairing id is 16 bytes")
        return magic + [version, 0, UInt8(port >> 8), UInt8(port & 0xff)] + pairingID
    }

    /// The port and pairing id of a HELLO, or nil for anything else.
    public static func parseHello(_ bytes: [UInt8]) -> (port: UInt16, pairingID: [UInt8])? {
        guard bytes.count == helloLength, Array(bytes[0..<4]) == magic, bytes[4] == version, bytes[5] == 0 else {
            return nil
        }
        return (UInt16(bytes[6]) << 8 | UInt16(bytes[7]), Array(bytes[8..<24]))
    }

    /// SHA-256(`baton pair v1 commit` ‖ public key ‖ nonce).
    public static func commitment(publicKey: [UInt8], nonce: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: commitLabel + publicKey + nonce))
    }

    /// The three outputs of one pairing: the code and the two SEALED keys.
    public struct Keys: Equatable, Sendable {
        public let code: String
        public let sharer: [UInt8]
        public let joiner: [UInt8]

        /// From the X25519 secret and the transcript COMMIT ‖ PUBLIC ‖ REVEAL.
        public init(sharedSecret: [UInt8], transcript: [UInt8]) {
            let salt = Array(SHA256.hash(data: transcript))
            func derive(_ info: String, _ count: Int) -> [UInt8] {
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: SymmetricKey(data: sharedSecret), salt: salt, info: Array(info.utf8),
                    outputByteCount: count
                ).withUnsafeBytes { Array($0) }
            }
            let number = derive("baton pair v1 code", 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } % 1_000_000
            let digits = String(number)
            let six = String(repeating: "0", count: 6 - digits.count) + digits
            code = String(six.prefix(3)) + " " + String(six.suffix(3))
            sharer = derive("baton pair v1 sharer", 32)
            joiner = derive("baton pair v1 joiner", 32)
        }
    }

    /// Frame types on the TCP connection.
    public enum FrameType: UInt8, Sendable {
        case commit = 1, publicKey = 2, reveal = 3, sealed = 4, abort = 5
    }

    /// Plaintext types inside a SEALED frame.
    enum SealedType: UInt8 {
        case confirm = 1, key = 2, stored = 3
    }

    /// type ‖ length (2) ‖ body.
    public static func frame(_ type: FrameType, _ body: [UInt8]) -> [UInt8] {
        precondition((1...maximumBody).contains(body.count), "a pairing frame's body is 1-512 bytes")
        return [type.rawValue, UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
    }

    /// ChaCha20-Poly1305 under `key`, nonce `00000000` ‖ counter, associated data the header.
    static func sealedFrame(_ plaintext: [UInt8], key: [UInt8], counter: UInt64) -> [UInt8] {
        let length = plaintext.count + 16
        let header: [UInt8] = [FrameType.sealed.rawValue, UInt8(length >> 8), UInt8(length & 0xff)]
        // swift-format-ignore
        let box = try! ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: nonce(counter), authenticating: header)
        return header + Array(box.ciphertext) + Array(box.tag)
    }

    static func open(_ body: [UInt8], header: [UInt8], key: [UInt8], counter: UInt64) -> [UInt8]? {
        guard body.count > 16,
            let box = try? ChaChaPoly.SealedBox(
                nonce: nonce(counter), ciphertext: body.dropLast(16), tag: body.suffix(16)),
            let plain = try? ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: header)
        else { return nil }
        return Array(plain)
    }

    static func nonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
        let bytes: [UInt8] = [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) }
        return try! ChaChaPoly.Nonce(data: bytes)
    }
}

/// Why a pairing ended without a key changing hands.
public enum PairingFailure: Equatable, Sendable, CustomStringConvertible {
    case declinedHere, declinedThere
    case anotherPairing
    case commitmentMismatch
    case protocolError(String)
    case timedOut
    case connectionLost
    case otherSideAborted(UInt8)

    /// The ABORT reason this side sends for it, or nil when nothing is sent.
    var abortReason: UInt8? {
        switch self {
        case .declinedHere: 1
        case .anotherPairing: 2
        case .commitmentMismatch, .protocolError: 3
        case .timedOut: 4
        case .declinedThere, .connectionLost, .otherSideAborted: nil
        }
    }

    public var description: String {
        switch self {
        case .declinedHere: "Not paired: you did not confirm the code. Nothing was changed."
        case .declinedThere: "Not paired: the other side did not confirm the code. Nothing was changed."
        case .anotherPairing: "Not paired: another pairing is running on this network; try again."
        case .commitmentMismatch:
            "Not paired: the other side's key does not match its commitment (someone may be interfering). Nothing was changed."
        case .protocolError(let what): "Not paired: \(what). Nothing was changed."
        case .timedOut: "Not paired: the pairing timed out. Nothing was changed."
        case .connectionLost: "Not paired: the other side went away. Nothing was changed."
        case .otherSideAborted(let reason):
            switch reason {
            case 2: "Not paired: another pairing is running on this network; try again."
            case 3: "Not paired: the other side saw a protocol error. Nothing was changed."
            case 4: "Not paired: the other side timed out. Nothing was changed."
            default: "Not paired: the other side ended the pairing. Nothing was changed."
            }
        }
    }
}

/// What the pairing machine asks its driver to do.
public enum PairingAction: Equatable, Sendable {
    /// Write these bytes to the connection.
    case send([UInt8])
    /// Print `Code: …` and ask the person; `peerName` is the other side's claimed name.
    case showCode(String, peerName: String)
    /// Joiner only: store this key atomically, then call `stored(_:)`.
    case storeKey(GroupKey)
    /// Done: paired with `peerName`.
    case paired(peerName: String)
    /// Done: nothing changed.
    case failed(PairingFailure)
}

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
    /// Kept as bytes: the swift-crypto key type is not declared `Sendable`, and this machine is.
    let privateKeyBytes: [UInt8]
    let nonce: [UInt8]
    private(set) var phase: Phase
    private var buffer: [UInt8] = []
    private var transcript: [UInt8] = []
    private var peerName = ""
    private var peerCommitment: [UInt8] = []
    private var keys: Pairing.Keys?
    private var sendCounter: UInt64 = 0
    private var receiveCounter: UInt64 = 0
    private var confirmedHere = false
    private var confirmedThere = false

    /// `privateKey` and `nonce` are fresh random values in use; tests fix them.
    public init(
        role: Role, name: String,
        privateKey: [UInt8]? = nil,
        nonce: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    ) {
        precondition(nonce.count == 32, "a pairing nonce is 32 bytes")
        self.role = role
        var bytes = Array(name.utf8.prefix(Pairing.maximumNameBytes))
        while String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        self.name = bytes.isEmpty ? Array("baton".utf8) : bytes
        self.privateKeyBytes = privateKey ?? Array(Curve25519.KeyAgreement.PrivateKey().rawRepresentation)
        self.nonce = nonce
        if case .sharer = role { phase = .waitingCommit } else { phase = .waitingPublic }
    }

    public var isDone: Bool { phase == .done }
    var isSharer: Bool { if case .sharer = role { true } else { false } }
    var privateKey: Curve25519.KeyAgreement.PrivateKey {
        try! Curve25519.KeyAgreement.PrivateKey(rawRepresentation: privateKeyBytes)
    }
    var publicKey: [UInt8] { Array(privateKey.publicKey.rawRepresentation) }

    /// The joiner's first frame, COMMIT; the sharer sends nothing first.
    public mutating func start() -> [PairingAction] {
        guard !isSharer, transcript.isEmpty else { return [] }
        let frame = Pairing.frame(
            .commit, [Pairing.version] + Pairing.commitment(publicKey: publicKey, nonce: nonce) + name)
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
        return [.send(seal([Pairing.SealedType.confirm.rawValue]))]
    }

    /// Joiner: the driver stored the key (or could not: then `problem` says why).
    public mutating func stored(problem: String? = nil) -> [PairingAction] {
        guard phase == .waitingStore else { return [] }
        if let problem { return fail(.protocolError("the key could not be stored: \(problem)")) }
        phase = .done
        return [.send(seal([Pairing.SealedType.stored.rawValue])), .paired(peerName: peerName)]
    }

    /// A HELLO with another pairing id, or a second connection.
    public mutating func otherPairingSeen() -> [PairingAction] {
        guard phase != .done, phase != .waitingStore, phase != .waitingStored else { return [] }
        return fail(.anotherPairing)
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

    // MARK: - Frames

    private mutating func handle(_ type: Pairing.FrameType, frame: [UInt8], body: [UInt8]) -> [PairingAction] {
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

    private mutating func handleSealed(_ plain: [UInt8]) -> [PairingAction] {
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

    private mutating func sendKey() -> [PairingAction] {
        guard case .sharer(let groupKey) = role else { return [] }
        phase = .waitingStored
        return [.send(seal([Pairing.SealedType.key.rawValue] + groupKey.bytes))]
    }

    private mutating func agree(peerPublicKey: [UInt8]) -> Bool {
        guard let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        else { return false }
        let bytes = secret.withUnsafeBytes { Array($0) }
        guard bytes.contains(where: { $0 != 0 }) else { return false }
        keys = Pairing.Keys(sharedSecret: bytes, transcript: transcript)
        return true
    }

    private mutating func seal(_ plain: [UInt8]) -> [UInt8] {
        let key = isSharer ? keys!.sharer : keys!.joiner
        defer { sendCounter += 1 }
        return Pairing.sealedFrame(plain, key: key, counter: sendCounter)
    }

    private mutating func open(_ frame: [UInt8]) -> [UInt8]? {
        let key = isSharer ? keys!.joiner : keys!.sharer
        defer { receiveCounter += 1 }
        return Pairing.open(Array(frame[3...]), header: Array(frame[0..<3]), key: key, counter: receiveCounter)
    }

    private mutating func fail(_ failure: PairingFailure) -> [PairingAction] {
        phase = .done
        var actions: [PairingAction] = []
        if let reason = failure.abortReason { actions.append(.send(Pairing.frame(.abort, [reason]))) }
        return actions + [.failed(failure)]
    }

    private static func name(_ bytes: ArraySlice<UInt8>) -> String? {
        guard (1...Pairing.maximumNameBytes).contains(bytes.count) else { return nil }
        return String(validating: Array(bytes), as: UTF8.self)
    }
}
