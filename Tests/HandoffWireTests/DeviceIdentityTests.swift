import Crypto
import Foundation
import Testing
@testable import HandoffWire

/// docs/PROTOCOL.md, section 3, "Device identity": the derivation's check values, and signatures.
@Suite("Device identity")
struct DeviceIdentityTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static let seed = (0..<32).map { UInt8($0) }

    @Test("The page's check values for the seed 00 01 … 1f")
    func checkValues() throws {
        let identity = try #require(DeviceIdentity(seed: Self.seed))
        #expect(Self.hex(identity.signingKeyBytes) == "fc11852388d790b0f91eef54e010ff9fb66ccdd4e5ffadb2e1685736d60c4cdc")
        #expect(Self.hex(identity.agreementKeyBytes) == "007468f462fbc71b3bfbe5acb847819bae1447a3f392d97b1e8913cd63bc9c67")
        #expect(Self.hex(identity.publicIdentity.signingKey) == "3f3fa6694f3a01416b7be8d6132c4cd476640815ab47e089036157e708d7e50f")
        #expect(Self.hex(identity.publicIdentity.agreementKey) == "75ee552094ded41e223f42497aa03cc24ed215e3ea3c61525b1547e0a2c7da4c")
        #expect(identity.publicIdentity.deviceID.hex == "2614dcb96a1b161f024a218624342e1b")
        #expect(identity.publicIdentity.deviceID.fingerprint == "2614 dcb9 6a1b 161f 024a 2186 2434 2e1b")
        #expect(identity.base64 == "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")
    }

    @Test("Signatures are RFC 8032's: the same bytes every time (as Python's cryptography makes them), and they verify")
    func signatures() throws {
        let identity = try #require(DeviceIdentity(seed: Self.seed))
        let first = identity.sign(Array("x".utf8))
        #expect(first == identity.sign(Array("x".utf8)))
        // Made by Python `cryptography` (Ed25519PrivateKey.from_private_bytes(signing key).sign(b"x")).
        #expect(Self.hex(first) == "5c3839c6b4aff100f3df366f4cd9730b42bb3242f065a4277ba8c13373e5d467575fa8d6b03b457edbebb09baa6ecc5e8f60903c23a847c6c0baa5af4a05f80d")
        #expect(identity.publicIdentity.isValidSignature(first, of: Array("x".utf8)))
        #expect(!identity.publicIdentity.isValidSignature(first, of: Array("y".utf8)))
        var flipped = first
        flipped[10] ^= 1
        #expect(!identity.publicIdentity.isValidSignature(flipped, of: Array("x".utf8)))
        #expect(!DeviceIdentity.random().publicIdentity.isValidSignature(first, of: Array("x".utf8)))
        #expect(!identity.publicIdentity.isValidSignature(Array(first.dropLast()), of: Array("x".utf8)))
    }

    @Test("The seed's text: white space ignored, anything but 32 bytes of base64 refused, saying why")
    func text() throws {
        let identity = try DeviceIdentity(base64: "  AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n", source: "f")
        #expect(identity.seed == Self.seed)
        #expect(throws: DeviceIdentity.Malformed(source: "f", reason: "it is not standard base64")) {
            try DeviceIdentity(base64: "not base64!", source: "f")
        }
        #expect(throws: DeviceIdentity.Malformed(source: "f", reason: "it decodes to 3 bytes, not 32")) {
            try DeviceIdentity(base64: "AAAA", source: "f")
        }
        #expect(DeviceIdentity(seed: [1, 2]) == nil)
        #expect(PublicIdentity(bytes: Array(repeating: 0, count: 63)) == nil)
        #expect(DeviceIdentity.random().seed != DeviceIdentity.random().seed)
    }
}
