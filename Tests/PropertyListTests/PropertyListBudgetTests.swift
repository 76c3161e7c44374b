import Foundation
import Testing
@testable import PropertyList

/// The reader's byte budget: strings and data counted once per use of a shared object.
@Suite("Binary property-list reader: the byte budget")
struct PropertyListBudgetTests {
    let reader = BinaryPropertyListReader()

    /// An array (object 0) of `uses` references to one ASCII string (object 1) of `length` bytes.
    static func sharedString(length: Int, uses: Int) -> [UInt8] {
        precondition(uses < 65_536 && length < 65_536)
        let array = [0xAF, 0x11] + RawBinaryPlist.bigEndian(UInt64(uses), width: 2) + Array(repeating: UInt8(1), count: uses)
        let string = [0x5F, 0x11] + RawBinaryPlist.bigEndian(UInt64(length), width: 2) + Array(repeating: UInt8(ascii: "x"), count: length)
        return RawBinaryPlist.build([array, string])
    }

    @Test func theBudgetIsTwiceTheInputPlus4KiBWithinTheCap() {
        let limits = BinaryPropertyListReader.Limits()
        #expect(limits.maxExpandedBytes == 2 * 60_000 + 4_096)
        #expect(limits.expandedByteBudget(forInputOf: 100) == 4_296)
        #expect(limits.expandedByteBudget(forInputOf: 60_000) == 124_096)
        #expect(limits.expandedByteBudget(forInputOf: 1_000_000) == 124_096, "never more than the cap")
        let state = BinaryPropertyListReader.Limits(maxBytes: 35_651_584)
        #expect(state.expandedByteBudget(forInputOf: 35_651_584) == 2 * 35_651_584 + 4_096)
        #expect(BinaryPropertyListReader.Limits(maxBytes: .max).expandedByteBudget(forInputOf: .max) == .max, "no overflow")
    }

    @Test func oneStringNamedThousandsOfTimesIsRefused() {
        // The finding's shape: 7,500 uses of one 29 KB string, 37 KB of plist for 217 MB of text.
        let plist = Self.sharedString(length: 29_000, uses: 7_500)
        #expect(plist.count < 40_000)
        let budget = reader.limits.expandedByteBudget(forInputOf: plist.count)
        #expect(throws: PropertyListReadError.tooManyExpandedBytes(limit: budget)) { try reader.read(plist) }
    }

    @Test func nestedSharingIsCountedAtEveryUse() {
        // 50 uses of an array holding 50 uses of one 1,000-byte string: 2.5 MB from 3.7 KB.
        let outer = [0xAF, 0x10, 50] + Array(repeating: UInt8(1), count: 50)
        let inner = [0xAF, 0x10, 50] + Array(repeating: UInt8(2), count: 50)
        let string = [0x5F, 0x11, 0x03, 0xE8] + Array(repeating: UInt8(ascii: "y"), count: 1_000)
        let plist = RawBinaryPlist.build([outer, inner, string], offsetSize: 2)
        let budget = 2 * plist.count + 4_096
        #expect(budget < 12_000)
        #expect(throws: PropertyListReadError.tooManyExpandedBytes(limit: budget)) { try reader.read(plist) }
        // The same string in 2 uses of 2 uses (4,000 bytes) fits.
        let small = RawBinaryPlist.build(
            [[0xA2, 1, 1], [0xA2, 2, 2], string], offsetSize: 2)
        let twice = PropertyListValue.array(Array(repeating: .string(String(repeating: "y", count: 1_000)), count: 2))
        #expect((try? reader.read(small)) == .array([twice, twice]))
    }

    @Test func sharedDictionaryKeysCountAtEveryUse() {
        // An array naming one dictionary `uses` times; the dictionary's one key is 300 bytes long.
        func plist(uses: UInt8) -> [UInt8] {
            let array = [0xAF, 0x10, uses] + Array(repeating: UInt8(1), count: Int(uses))
            let key = [0x5F, 0x11, 0x01, 0x2C] + Array(repeating: UInt8(ascii: "k"), count: 300)
            return RawBinaryPlist.build([array, [0xD1, 2, 3], key, [0x09]], offsetSize: 2)
        }
        let many = plist(uses: 200)
        #expect(throws: PropertyListReadError.tooManyExpandedBytes(limit: 2 * many.count + 4_096)) { try reader.read(many) }
        #expect(throws: Never.self) { try reader.read(plist(uses: 10)) }
    }

    @Test func theCapIsExactlyAtTheLimit() throws {
        // One 40,000-byte string used twice: 80,000 bytes, within its input's allowance (over 84,000).
        let plist = RawBinaryPlist.build(
            [[0xA2, 1, 1], [0x5F, 0x11, 0x9C, 0x40] + Array(repeating: UInt8(ascii: "x"), count: 40_000)], offsetSize: 4)
        #expect(2 * plist.count + 4_096 > 80_000)
        let exact = BinaryPropertyListReader(limits: .init(maxExpandedBytes: 80_000))
        let value = try exact.read(plist)
        #expect(value == .array(Array(repeating: .string(String(repeating: "x", count: 40_000)), count: 2)))
        let onePast = BinaryPropertyListReader(limits: .init(maxExpandedBytes: 79_999))
        #expect(throws: PropertyListReadError.tooManyExpandedBytes(limit: 79_999)) { try onePast.read(plist) }
    }

    @Test func theInputRuleIsExactlyAtTheLimit() throws {
        // Around the boundary uses × length = 2 × size + 4,096, for growing lengths: both sides must be seen.
        var accepted = 0
        var refused = 0
        for length in 150...200 {
            let plist = Self.sharedString(length: length, uses: 30)
            let budget = 2 * plist.count + 4_096
            if 30 * length <= budget {
                #expect(throws: Never.self) { try reader.read(plist) }
                accepted += 1
            } else {
                #expect(throws: PropertyListReadError.tooManyExpandedBytes(limit: budget)) { try reader.read(plist) }
                refused += 1
            }
        }
        #expect(accepted > 0 && refused > 0)
    }

    @Test func utf16TextCountsAsItsUTF8() throws {
        // 1,000 CJK characters: 2,000 bytes of UTF-16 in the plist, 3,000 bytes of UTF-8 once read.
        let text = String(repeating: "字", count: 1_000)
        let string: [UInt8] = [0x6F, 0x11, 0x03, 0xE8] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let plist = RawBinaryPlist.build([[0xA2, 1, 1], string], offsetSize: 2)
        #expect(throws: PropertyListReadError.tooManyExpandedBytes(limit: 5_999)) {
            try BinaryPropertyListReader(limits: .init(maxExpandedBytes: 5_999)).read(plist)
        }
        let value = try BinaryPropertyListReader(limits: .init(maxExpandedBytes: 6_000)).read(plist)
        #expect(value == [.string(text), .string(text)])
    }

    @Test func honestRecordsNearTheSizeLimitFit() throws {
        // Unshared text that is all 3-byte UTF-8 is the worst an honest plist does: 1.5 times its size.
        for text in [String(repeating: "字", count: 29_000), String(repeating: "a", count: 59_000), String(repeating: "é", count: 29_000)] {
            let plist = BinaryPropertyListWriter().write(["text": .string(text), "cursorLine": 0])
            #expect(plist.count <= 60_000)
            let value = try reader.read(plist)
            #expect(value == ["text": .string(text), "cursorLine": 0])
        }
    }

}
