import Crypto
import FoundationEssentials
import PropertyList

/// A version 3 datagram whose tag verified (steps 1–8): its header, the signature and the
/// payload, not yet checked further.
public struct OpenedDatagram: Equatable, Sendable {
    public let header: DatagramHeader
    /// The 34 header bytes as received, which the signature covers.
    public let headerBytes: [UInt8]
    /// The 64 signature bytes sealed before the payload.
    public let signature: [UInt8]
    /// The payload: a binary plist, not yet read.
    public let payload: [UInt8]

    /// ASCII `baton v3 datagram`, what every datagram's signed bytes start with.
    public static let signatureContext: [UInt8] = Array("baton v3 datagram".utf8)

    /// What the signature covers: `baton v3 datagram` ‖ header ‖ payload.
    public static func signedBytes(header: [UInt8], payload: [UInt8]) -> [UInt8] {
        signatureContext + header + payload
    }

    /// Step 10: the signature is `device`'s over the context, the header and the payload, else
    /// `badSignature`. The caller gives the listed device whose tag the sender id carries.
    public func verify(by device: PublicIdentity) throws(RejectionReason) {
        guard device.isValidSignature(signature, of: Self.signedBytes(header: headerBytes, payload: payload)) else {
            throw .badSignature
        }
    }
}

/// A version 3 datagram after every stateless check: its header, message and `sentAt`.
public struct DecodedDatagram: Equatable, Sendable {
    public var header: DatagramHeader
    public var message: HandoffMessage
    public var sentAt: Date
}

/// Version 3 datagrams (docs/PROTOCOL.md, sections 2, 3 and 7): seals a message under a sender
/// key with the sequence as nonce and the device's signature inside, and opens one in the
/// page's steps, so that the receive gate can put its own checks between them:
///
/// 1. `DatagramHeader(parsing:)`: steps 1–3 (`tooShort`, `oldProtocol`, `badMagic`, `unknownKind`);
/// 2. the gate: own sender id (step 4), the key id (step 5, `authenticationFailed`) and the listed
///    device (step 6, `unknownDevice`; not for DEVICES);
/// 3. `open(_:header:)`: steps 7 and 8 (`tooLarge`, then `authenticationFailed` for an unknown key id
///    or a tag that does not verify);
/// 4. the gate: the duplicate check (step 9);
/// 5. `OpenedDatagram.verify(by:)`: step 10 (`badSignature`);
/// 6. `decode(_:now:)`: steps 11–14 (plist, keys, values, clock).
///
/// `decode(_:now:identity:)` runs all of them but steps 4 and 9, for tests, tools and vectors.
public struct DatagramCodec: Sendable {
    /// The current key, which seals, and the previous one, which still opens.
    public var keys: GroupKeys
    /// The sender keys worked out so far, shared by copies of this codec.
    public let senderKeys: SenderKeys
    public var readerLimits: BinaryPropertyListReader.Limits
    /// How far `sentAt` may be from the receiver's clock.
    public var allowedClockSkew: TimeInterval

    public init(keys: GroupKeys, allowedClockSkew: TimeInterval = 60, senderKeys: SenderKeys = SenderKeys()) {
        self.keys = keys
        self.senderKeys = senderKeys
        readerLimits = BinaryPropertyListReader.Limits()
        self.allowedClockSkew = allowedClockSkew
    }

    /// The canonical binary-plist payload of a message.
    public static func plaintext(_ message: HandoffMessage, sentAt: Date) -> [UInt8] {
        BinaryPropertyListWriter().write(.dictionary(message.payload(sentAt: sentAt)))
    }

    /// Encodes, signs and seals a message under the current group key, or under `key` when
    /// given (DEVICES datagrams go out under the previous key too). `senderID` must carry
    /// `identity`'s tag; a payload over 60,000 bytes is refused.
    public func encode(
        _ message: HandoffMessage, identity: DeviceIdentity, senderID: SenderID, sequence: UInt64, sentAt: Date,
        under key: GroupKey? = nil, flags: UInt8 = 0
    ) throws(SealError) -> [UInt8] {
        try seal(
            kind: message.kind, payload: Self.plaintext(message, sentAt: sentAt), identity: identity,
            senderID: senderID, sequence: sequence, under: key, flags: flags)
    }

    /// Signs and seals a payload as a datagram of `kind`.
    public func seal(
        kind: DatagramKind, payload: [UInt8], identity: DeviceIdentity, senderID: SenderID, sequence: UInt64,
        under key: GroupKey? = nil, flags: UInt8 = 0
    ) throws(SealError) -> [UInt8] {
        precondition(
            senderID.tag == DeviceTag(identity.publicIdentity.deviceID), "a sender id carries its own device's tag")
        guard payload.count <= DatagramHeader.maximumPayload else {
            throw .payloadTooLarge(bytes: payload.count, limit: DatagramHeader.maximumPayload)
        }
        let groupKey = key ?? keys.current
        let keyID = groupKey == keys.current ? keys.currentID : (groupKey == keys.previous ? keys.previousID! : groupKey.keyID)
        let header = DatagramHeader(kind: kind, flags: flags, keyID: keyID, senderID: senderID, sequence: sequence)
        let headerBytes = header.bytes
        let signature = identity.sign(OpenedDatagram.signedBytes(header: headerBytes, payload: payload))
        let senderKey = senderKeys.key(for: senderID, groupKey: groupKey, keyID: keyID)
        // A 12-byte nonce and a 32-byte key cannot be refused by ChaChaPoly.
        let box = try! ChaChaPoly.seal(
            signature + payload, using: SymmetricKey(data: senderKey), nonce: ChaChaPoly.Nonce(data: header.nonce),
            authenticating: headerBytes)
        var out = headerBytes
        out.reserveCapacity(DatagramHeader.overhead + payload.count)
        out.append(contentsOf: box.ciphertext)
        out.append(contentsOf: box.tag)
        return out
    }

    /// Steps 6–8, after `header` was parsed from `datagram`: the size (`tooLarge`), the key id
    /// (`authenticationFailed` unless it names the current or previous group key) and the tag
    /// (`authenticationFailed`).
    public func open(_ datagram: [UInt8], header: DatagramHeader) throws(RejectionReason) -> OpenedDatagram {
        guard datagram.count <= DatagramHeader.maximumDatagramLength else { throw .tooLarge }
        guard let groupKey = keys.key(for: header.keyID) else { throw .authenticationFailed }
        let senderKey = senderKeys.key(for: header.senderID, groupKey: groupKey, keyID: header.keyID)
        let headerBytes = Array(datagram[0..<DatagramHeader.length])
        let tagStart = datagram.count - DatagramHeader.tagLength
        let plaintext: Data
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: ChaChaPoly.Nonce(data: header.nonce), ciphertext: datagram[DatagramHeader.length..<tagStart],
                tag: datagram[tagStart...])
            plaintext = try ChaChaPoly.open(box, using: SymmetricKey(data: senderKey), authenticating: headerBytes)
        } catch {
            throw .authenticationFailed
        }
        let bytes = Array(plaintext)
        return OpenedDatagram(
            header: header, headerBytes: headerBytes, signature: Array(bytes[0..<DatagramHeader.signatureLength]),
            payload: Array(bytes[DatagramHeader.signatureLength...]))
    }

    /// Steps 1–3 and 6–8.
    public func open(_ datagram: [UInt8]) throws(RejectionReason) -> OpenedDatagram {
        try open(datagram, header: DatagramHeader(parsing: datagram))
    }

    /// Steps 11–14 of a datagram that opened (and whose signature the caller checked, or, for
    /// DEVICES from a device not listed, will check statement by statement): the plist
    /// (`malformedPayload`, `notADictionary`), its keys (`missingKey`, `wrongType`), their values
    /// (`invalidValue`) and `sentAt` (`clockSkew`).
    public func decode(_ opened: OpenedDatagram, now: Date) throws(RejectionReason) -> DecodedDatagram {
        let root: PropertyListValue
        do {
            root = try BinaryPropertyListReader(limits: readerLimits).read(opened.payload)
        } catch {
            throw .malformedPayload
        }
        guard case .dictionary(let payload) = root else { throw .notADictionary }
        let (message, sentAt) = try HandoffMessage.decode(kind: opened.header.kind, payload: payload)
        guard abs(sentAt.timeIntervalSince(now)) <= allowedClockSkew else { throw .clockSkew }
        return DecodedDatagram(header: opened.header, message: message, sentAt: sentAt)
    }

    /// Every stateless step in the page's order but the own sender id (4) and the duplicate (9):
    /// `identity` gives the listed device with a tag, nil when none is listed (`unknownDevice`;
    /// a DEVICES datagram then goes on without its signature checked, as step 6 says).
    public func decode(
        _ datagram: [UInt8], now: Date, identity: (DeviceTag) -> PublicIdentity?
    ) throws(RejectionReason) -> DecodedDatagram {
        let header = try DatagramHeader(parsing: datagram)
        // Step 5: another group key is said as such, whether or not the device is listed.
        guard keys.key(for: header.keyID) != nil else { throw .authenticationFailed }
        let device = identity(header.senderID.tag)
        guard device != nil || header.kind == .devices else { throw .unknownDevice }
        let opened = try open(datagram, header: header)
        if let device { try opened.verify(by: device) }
        return try decode(opened, now: now)
    }
}
