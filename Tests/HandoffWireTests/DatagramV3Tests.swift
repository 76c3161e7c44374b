import Crypto
import Foundation
import PropertyList
import Testing
@testable import HandoffWire

/// Version 3 datagrams: every rejection of the page's steps (docs/PROTOCOL.md, section 7), the
/// signed bytes, the key id and previous key, and the sender-key cache.
@Suite("Datagram v3")
struct DatagramV3Tests {
    static let now = Fixtures.sentAt
    static let alice = Fixtures.identity
    static let sender = Fixtures.sender3
    static let codec = DatagramCodec(keys: GroupKeys(current: Fixtures.key))
    static let query = HandoffMessage.query(types: ["dev.baton.counter"])

    static func listed(_ tag: DeviceTag) -> PublicIdentity? {
        tag == sender.tag ? alice.publicIdentity : nil
    }

    static func sealed(_ message: HandoffMessage = query, sequence: UInt64 = 1, codec: DatagramCodec = codec) -> [UInt8] {
        try! codec.encode(message, identity: alice, senderID: sender, sequence: sequence, sentAt: now)
    }

    /// A datagram built here from the page's formulas alone: `signature` ‖ `payload` sealed under
    /// `sender`'s key with the sequence nonce and `header` as associated data.
    static func forge(header: DatagramHeader, signature: [UInt8], payload: [UInt8], key: GroupKey = Fixtures.key) -> [UInt8] {
        let senderKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key.bytes), salt: Array("baton-handoff".utf8),
            info: Array("v3 datagram".utf8) + header.senderID.bytes, outputByteCount: 32)
        let nonce = try! ChaChaPoly.Nonce(data: [0, 0, 0, 0] + DatagramHeader.bigEndian(header.sequence))
        let box = try! ChaChaPoly.seal(signature + payload, using: senderKey, nonce: nonce, authenticating: header.bytes)
        return header.bytes + Array(box.ciphertext) + Array(box.tag)
    }

    static func decode(_ datagram: [UInt8], codec: DatagramCodec = codec) throws(RejectionReason) -> DecodedDatagram {
        try codec.decode(datagram, now: now, identity: listed)
    }

    static func header(_ kind: DatagramKind = .query, sequence: UInt64 = 1, keyID: KeyID = Fixtures.key.keyID) -> DatagramHeader {
        DatagramHeader(kind: kind, keyID: keyID, senderID: sender, sequence: sequence)
    }

    static func payload(_ dict: [String: PropertyListValue]) -> [UInt8] {
        BinaryPropertyListWriter().write(.dictionary(dict))
    }

    static func signed(_ header: DatagramHeader, _ payload: [UInt8], by identity: DeviceIdentity = alice) -> [UInt8] {
        forge(header: header, signature: identity.sign(Array("baton v3 datagram".utf8) + header.bytes + payload), payload: payload)
    }

    @Test func theHeaderIs34BytesAsThePageLaysItOut() {
        let datagram = Self.sealed(sequence: 0x0102_0304_0506_0708)
        #expect(Array(datagram[0..<4]) == Array("BTN3".utf8))
        #expect(datagram[4] == 3)
        #expect(datagram[5] == 0)
        #expect(Array(datagram[6..<10]) == Fixtures.key.keyID.bytes)
        #expect(Array(datagram[10..<18]) == Array(Fixtures.identity.publicIdentity.deviceID.bytes.prefix(8)))
        #expect(Array(datagram[18..<26]) == Fixtures.instance)
        #expect(Array(datagram[26..<34]) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(datagram.count == 114 + DatagramCodec.plaintext(Self.query, sentAt: Self.now).count)
        #expect(try! DatagramHeader(parsing: datagram) == Self.header(sequence: 0x0102_0304_0506_0708))
    }

    @Test func theKeyIDIsHKDFsFirstFourBytes() {
        let full = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Fixtures.key.bytes), salt: Array("baton-handoff".utf8),
            info: Array("v3 key id".utf8), outputByteCount: 32)
        #expect(Fixtures.key.keyID.bytes == full.withUnsafeBytes { Array($0.prefix(4)) })
    }

    @Test func theSignatureCoversContextHeaderAndPayloadExactly() throws {
        let datagram = Self.sealed()
        let opened = try Self.codec.open(datagram)
        let payload = DatagramCodec.plaintext(Self.query, sentAt: Self.now)
        #expect(opened.payload == payload)
        #expect(opened.headerBytes == Array(datagram.prefix(34)))
        // Ed25519 is deterministic: the same signature, made here from the page's bytes.
        #expect(opened.signature == Self.alice.sign(Array("baton v3 datagram".utf8) + Array(datagram.prefix(34)) + payload))
        // And the whole datagram is what the page's formulas give.
        #expect(datagram == Self.forge(header: Self.header(), signature: opened.signature, payload: payload))
    }

    @Test func stepsOneToThree() {
        let good = Self.sealed()
        #expect(throws: RejectionReason.tooShort) { try Self.decode(Array(good.prefix(113))) }
        #expect(throws: RejectionReason.tooShort) { try Self.decode([]) }
        var old = good
        old[3] = UInt8(ascii: "1")
        #expect(throws: RejectionReason.oldProtocol) { try Self.decode(old) }
        var bad = good
        bad[0] = UInt8(ascii: "X")
        #expect(throws: RejectionReason.badMagic) { try Self.decode(bad) }
        var two = good
        two[3] = UInt8(ascii: "2")
        #expect(throws: RejectionReason.badMagic) { try Self.decode(two) }
        for kind: UInt8 in [0, 8, 255] {
            var unknown = good
            unknown[4] = kind
            #expect(throws: RejectionReason.unknownKind) { try Self.decode(unknown) }
        }
    }

    @Test func stepFiveUnknownDeviceButDevicesGoesOn() throws {
        let bob = Fixtures.bob
        let bobSender = SenderID(tag: DeviceTag(bob.publicIdentity.deviceID), instance: Fixtures.instance)!
        let fromBob = try Self.codec.encode(Self.query, identity: bob, senderID: bobSender, sequence: 1, sentAt: Self.now)
        #expect(throws: RejectionReason.unknownDevice) { try Self.decode(fromBob) }
        let devices = HandoffMessage.devices(statements: [], digest: Statement.setDigest([]))
        let introducing = try Self.codec.encode(devices, identity: bob, senderID: bobSender, sequence: 2, sentAt: Self.now)
        #expect(try Self.decode(introducing).message == devices)
    }

    @Test func stepSixTooLargeBeforeDecrypting() {
        var datagram = Self.header().bytes
        datagram += [UInt8](repeating: 0, count: 64 + 60_000 + 16)
        #expect(datagram.count == DatagramHeader.maximumDatagramLength)
        // At the limit it is opened (and fails its tag); one byte more is refused unopened.
        #expect(throws: RejectionReason.authenticationFailed) { try Self.decode(datagram) }
        datagram.append(0)
        #expect(throws: RejectionReason.tooLarge) { try Self.decode(datagram) }
        // A payload of 60,000 bytes is sealed; one more is refused.
        let codec = Self.codec
        #expect(throws: SealError.payloadTooLarge(bytes: 60_001, limit: 60_000)) {
            try codec.seal(kind: .query, payload: [UInt8](repeating: 0, count: 60_001), identity: Self.alice, senderID: Self.sender, sequence: 1)
        }
    }

    @Test func stepsSevenAndEightAuthenticationFailed() {
        // Another group key: its key id is not held.
        let other = DatagramCodec(keys: GroupKeys(current: GroupKey(bytes: Array(repeating: 7, count: 32))!))
        #expect(throws: RejectionReason.authenticationFailed) { try Self.decode(Self.sealed(codec: other)) }
        // A key id that is held, over a datagram sealed under another key.
        let forged = Self.signed(Self.header(), Self.payload(["sentAt": .date(Self.now)]))
        var relabelled = Self.forge(
            header: Self.header(), signature: Array(forged[34..<98]), payload: [], key: GroupKey(bytes: Array(repeating: 7, count: 32))!)
        #expect(throws: RejectionReason.authenticationFailed) { try Self.decode(relabelled) }
        relabelled = Self.sealed()
        // Any header byte changed breaks the tag: the flags byte, which receivers otherwise ignore,
        // the sequence (the nonce), the instance, the key id.
        for index in [5, 9, 20, 33] {
            var changed = relabelled
            changed[index] ^= 0x01
            #expect(throws: RejectionReason.authenticationFailed) { try Self.decode(changed) }
        }
        var body = relabelled
        body[40] ^= 0x80
        #expect(throws: RejectionReason.authenticationFailed) { try Self.decode(body) }
    }

    @Test func thePreviousKeyStillOpens() throws {
        let new = GroupKey(bytes: Array(0x60..<0x80))!
        let keys = GroupKeys(current: Fixtures.key).changed(to: new)
        #expect(keys.current == new && keys.previous == Fixtures.key)
        let both = DatagramCodec(keys: keys)
        #expect(try Self.decode(Self.sealed(), codec: both).message == Self.query)
        let underNew = try both.encode(Self.query, identity: Self.alice, senderID: Self.sender, sequence: 2, sentAt: Self.now)
        #expect(Array(underNew[6..<10]) == new.keyID.bytes)
        #expect(throws: RejectionReason.authenticationFailed) { try Self.decode(underNew) }
        let underOld = try both.encode(
            Self.query, identity: Self.alice, senderID: Self.sender, sequence: 3, sentAt: Self.now, under: Fixtures.key)
        #expect(try Self.decode(underOld).message == Self.query)
    }

    @Test func stepTenBadSignature() throws {
        let payload = DatagramCodec.plaintext(Self.query, sentAt: Self.now)
        // A valid AEAD under alice's sender id, signed by another identity.
        let byBob = Self.signed(Self.header(), payload, by: Fixtures.bob)
        let opened = try Self.codec.open(byBob)
        #expect(throws: RejectionReason.badSignature) { try opened.verify(by: Self.alice.publicIdentity) }
        #expect(throws: RejectionReason.badSignature) { try Self.decode(byBob) }
        // Alice's signature over other bytes: another header (sequence 2) sealed with header 1.
        let signature = Self.alice.sign(Array("baton v3 datagram".utf8) + Self.header(sequence: 2).bytes + payload)
        let wrongHeader = Self.forge(header: Self.header(), signature: signature, payload: payload)
        #expect(throws: RejectionReason.badSignature) { try Self.decode(wrongHeader) }
        // Without the context.
        let bare = Self.forge(header: Self.header(), signature: Self.alice.sign(Self.header().bytes + payload), payload: payload)
        #expect(throws: RejectionReason.badSignature) { try Self.decode(bare) }
        // An all-zero signature (a sender id with sequence 2⁶⁴−1, to silence alice) fails too.
        let silencer = Self.forge(header: Self.header(sequence: .max), signature: [UInt8](repeating: 0, count: 64), payload: payload)
        #expect(throws: RejectionReason.badSignature) { try Self.decode(silencer) }
        // The right signature passes.
        #expect(try Self.decode(Self.signed(Self.header(), payload)).message == Self.query)
    }

    @Test func stepsElevenToFourteen() throws {
        let h = Self.header
        #expect(throws: RejectionReason.malformedPayload) { try Self.decode(Self.signed(h(.query, 1, Fixtures.key.keyID), Array("not a plist".utf8))) }
        #expect(throws: RejectionReason.notADictionary) {
            try Self.decode(Self.signed(h(.query, 1, Fixtures.key.keyID), BinaryPropertyListWriter().write(.array([]))))
        }
        #expect(throws: RejectionReason.missingKey) { try Self.decode(Self.signed(h(.query, 1, Fixtures.key.keyID), Self.payload([:]))) }
        #expect(throws: RejectionReason.wrongType) {
            try Self.decode(Self.signed(h(.query, 1, Fixtures.key.keyID), Self.payload(["sentAt": .integer(1)])))
        }
        #expect(throws: RejectionReason.clockSkew) {
            try Self.decode(Self.signed(h(.query, 1, Fixtures.key.keyID), Self.payload(["sentAt": .date(Self.now.addingTimeInterval(60.5))])))
        }
        #expect(try Self.decode(Self.signed(h(.query, 1, Fixtures.key.keyID), Self.payload(["sentAt": .date(Self.now.addingTimeInterval(60))]))).message
            == .query(types: nil))
    }

    @Test func devicesKeysAndValues() throws {
        let h = Self.header(.devices)
        func devices(_ dict: [String: PropertyListValue]) throws(RejectionReason) -> HandoffMessage {
            var full: [String: PropertyListValue] = ["sentAt": .date(Self.now)]
            full.merge(dict) { $1 }
            return try Self.decode(Self.signed(h, Self.payload(full))).message
        }
        let digest = PropertyListValue.data(Data(repeating: 1, count: 8))
        let statement = PropertyListValue.data(Data(repeating: 2, count: 64))
        #expect(throws: RejectionReason.missingKey) { try devices(["digest": digest]) }
        #expect(throws: RejectionReason.missingKey) { try devices(["statements": .array([statement])]) }
        #expect(throws: RejectionReason.wrongType) { try devices(["statements": statement, "digest": digest]) }
        #expect(throws: RejectionReason.wrongType) { try devices(["statements": .array([.string("x")]), "digest": digest]) }
        #expect(throws: RejectionReason.wrongType) { try devices(["statements": .array([]), "digest": .string("x")]) }
        // `statements` is checked before `digest`.
        #expect(throws: RejectionReason.wrongType) { try devices(["statements": .integer(1), "digest": .integer(1)]) }
        #expect(throws: RejectionReason.invalidValue) { try devices(["statements": .array([.data(Data(count: 63))]), "digest": digest]) }
        #expect(throws: RejectionReason.invalidValue) { try devices(["statements": .array([.data(Data(count: 1_025))]), "digest": digest]) }
        #expect(throws: RejectionReason.invalidValue) { try devices(["statements": .array([statement]), "digest": .data(Data(count: 7))]) }
        #expect(try devices(["statements": .array([statement, .data(Data(count: 1_024))]), "digest": digest])
            == .devices(statements: [Array(repeating: 2, count: 64), Array(repeating: 0, count: 1_024)], digest: Array(repeating: 1, count: 8)))
    }

    @Test func senderKeysAreDerivedOncePerSenderAndBounded() throws {
        let cache = SenderKeys(capacity: 8)
        let codec = DatagramCodec(keys: GroupKeys(current: Fixtures.key), senderKeys: cache)
        let datagram = Self.sealed()
        for _ in 0..<5 { _ = try codec.open(datagram) }
        #expect(cache.derivations == 1)
        #expect(cache.count == 1)
        // Made-up senders fill it to its bound and no further.
        for n in 0..<40 {
            let sender = SenderID(bytes: [UInt8](repeating: UInt8(n), count: 16))!
            let header = DatagramHeader(kind: .query, keyID: Fixtures.key.keyID, senderID: sender, sequence: 1)
            #expect(throws: RejectionReason.authenticationFailed) { try codec.open(header.bytes + [UInt8](repeating: 0, count: 80)) }
            #expect(cache.count <= 8)
        }
        #expect(cache.derivations == 41)
        // A key worked out again is the same key.
        #expect(try codec.open(datagram).payload == DatagramCodec.plaintext(Self.query, sentAt: Self.now))
        #expect(cache.key(for: Self.sender, groupKey: Fixtures.key, keyID: Fixtures.key.keyID)
            == SenderKeys.derive(sender: Self.sender, groupKey: Fixtures.key))
        // Two senders on one device have two keys.
        let other = SenderID(tag: Self.sender.tag, instance: [UInt8](repeating: 0, count: 8))!
        #expect(SenderKeys.derive(sender: other, groupKey: Fixtures.key) != SenderKeys.derive(sender: Self.sender, groupKey: Fixtures.key))
    }

    @Test func aPayloadThatUnfoldsIsMalformedAfterItsSignature() throws {
        // A signed and sealed array of 100 references to one 20,000-byte string: the reader's byte
        // budget refuses it, after the signature (step 10) passed.
        let unfolding = DatagramBudgetTests.sharedString(length: 20_000, uses: 100)
        let datagram = Self.signed(Self.header(.announce), unfolding)
        try Self.codec.open(datagram).verify(by: Self.alice.publicIdentity)
        #expect(throws: RejectionReason.malformedPayload) { try Self.decode(datagram) }
    }

    @Test func senderIDsCarryTheDeviceTag() {
        let device = Fixtures.bob.publicIdentity.deviceID
        let a = SenderID.random(device: device), b = SenderID.random(device: device)
        #expect(a.tag == DeviceTag(device) && b.tag == DeviceTag(device))
        #expect(a != b)
        #expect(SenderID(tag: DeviceTag(device), instance: [1, 2, 3]) == nil)
        #expect(Fixtures.sender3.instance == Fixtures.instance)
    }
}
