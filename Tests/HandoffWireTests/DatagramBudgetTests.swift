import Foundation
import PropertyList
import Testing
@testable import HandoffWire

/// The reader's byte budget as the datagram codec applies it (moved whole from
/// PropertyListBudgetTests, which now tests the reader alone in PropertyListTests).
@Suite("Binary property-list reader: the byte budget in a datagram")
struct DatagramBudgetTests {
    /// An array (object 0) of `uses` references to one ASCII string (object 1) of `length` bytes.
    static func sharedString(length: Int, uses: Int) -> [UInt8] {
        precondition(uses < 65_536 && length < 65_536)
        let array = [0xAF, 0x11] + RawBinaryPlist.bigEndian(UInt64(uses), width: 2) + Array(repeating: UInt8(1), count: uses)
        let string = [0x5F, 0x11] + RawBinaryPlist.bigEndian(UInt64(length), width: 2) + Array(repeating: UInt8(ascii: "x"), count: length)
        return RawBinaryPlist.build([array, string])
    }

    @Test func aDatagramThatUnfoldsIsAMalformedPayload() {
        // A sealed ANNOUNCE-sized plaintext of shared references never reaches the message decoder.
        let plaintext = Self.sharedString(length: 20_000, uses: 100)
        let datagram = try! GroupKeyCipherV2(groupKey: Fixtures.key).seal(
            header: DatagramHeaderV2(kind: .announce, senderID: Fixtures.sender, sequence: 1, nonce: Fixtures.nonce),
            plaintext: plaintext)
        #expect(throws: RejectionReason.malformedPayload) { try DatagramCodecV2(groupKey: Fixtures.key).decode(datagram, now: Date()) }
    }
}
