import Foundation
import Testing
@testable import PropertyList

@Suite("Canonical binary property-list writer")
struct PropertyListWriterTests {
    let writer = BinaryPropertyListWriter()

    /// The bytes of a plist holding one scalar: everything between the header and the offset table.
    func objectBytes(_ value: PropertyListValue) -> [UInt8] {
        let plist = writer.write(value)
        return Array(plist[8..<RawBinaryPlist.tableOffset(of: plist)])
    }

    @Test func writesTheGoldenVectorByteForByte() {
        let value: PropertyListValue = ["b": [true, "é"], "a": 1]
        let expected: [UInt8] = Array("bplist00".utf8) + [
            0xD2, 0x01, 0x02, 0x03, 0x04,  // 0 @8: dictionary, keys 1 2, values 3 4
            0x51, 0x61,  // 1 @13: "a"
            0x51, 0x62,  // 2 @15: "b"
            0x10, 0x01,  // 3 @17: 1
            0xA2, 0x05, 0x06,  // 4 @19: array of 5 6
            0x09,  // 5 @22: true
            0x61, 0x00, 0xE9,  // 6 @23: "é" as UTF-16BE
            0x08, 0x0D, 0x0F, 0x11, 0x13, 0x16, 0x17,  // offset table @26
            0, 0, 0, 0, 0, 0, 1, 1,  // unused, sort version, offset size, reference size
            0, 0, 0, 0, 0, 0, 0, 7,  // objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object
            0, 0, 0, 0, 0, 0, 0, 26,  // offset table offset
        ]
        #expect(writer.write(value) == expected)
    }

    @Test func writesIntegersInTheFewestBytes() {
        #expect(objectBytes(0) == [0x10, 0x00])
        #expect(objectBytes(255) == [0x10, 0xFF])
        #expect(objectBytes(256) == [0x11, 0x01, 0x00])
        #expect(objectBytes(65_536) == [0x12, 0x00, 0x01, 0x00, 0x00])
        #expect(objectBytes(4_294_967_296) == [0x13, 0, 0, 0, 0x01, 0, 0, 0, 0])
        #expect(objectBytes(-1) == [0x13] + [UInt8](repeating: 0xFF, count: 8))
        #expect(objectBytes(.integer(.min)) == [0x13, 0x80, 0, 0, 0, 0, 0, 0, 0])
    }

    @Test func writesRealsAndDatesInEightBytes() {
        #expect(objectBytes(1.5) == [0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        #expect(objectBytes(-0.0) == [0x23, 0x80, 0, 0, 0, 0, 0, 0, 0])
        #expect(objectBytes(.date(Date(timeIntervalSinceReferenceDate: 1.5))) == [0x33, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
    }

    @Test func writesASCIIAsASCIIAndEverythingElseAsUTF16() {
        #expect(objectBytes("abc") == [0x53, 0x61, 0x62, 0x63])
        #expect(objectBytes("😀") == [0x62, 0xD8, 0x3D, 0xDE, 0x00])
        #expect(objectBytes("e\u{301}") == [0x62, 0x00, 0x65, 0x03, 0x01])
        #expect(objectBytes(.string(String(repeating: "x", count: 15))) == [0x5F, 0x10, 0x0F] + [UInt8](repeating: 0x78, count: 15))
        #expect(objectBytes(.data(Data(count: 300))).prefix(4) == [0x4F, 0x11, 0x01, 0x2C])
    }

    @Test func sortsKeysByTheirUTF8Bytes() throws {
        let value: PropertyListValue = ["b": 1, "B": 2, "é": 3, "a": 4, "😀": 5, "日": 6, "": 7, "ab": 8]
        let plist = writer.write(value)
        // Keys are objects 1 through 8, written in order right after the dictionary; a key
        // comes after the keys it begins with.
        let reader = BinaryPropertyListReader()
        var keys: [String] = []
        for object in 1...8 {
            let single = RawBinaryPlist.build([Array(plist[objectRange(object, in: plist)])])
            keys.append(try #require(try reader.read(single).stringValue))
        }
        #expect(keys == ["", "B", "a", "ab", "b", "é", "日", "😀"])
    }

    @Test func usesReferencesWideEnoughForTheObjectCount() {
        // CoreFoundation insists a reference can hold the object count itself, not just the largest index.
        let referenceSize = { (plist: [UInt8]) in plist[plist.count - 25] }
        #expect(referenceSize(writer.write(.array((0..<254).map { .integer($0) }))) == 1)
        #expect(referenceSize(writer.write(.array((0..<255).map { .integer($0) }))) == 2)
    }

    @Test func usesOffsetsWideEnoughForTheOffsetTableOffset() {
        let offsetSize = { (plist: [UInt8]) in plist[plist.count - 26] }
        #expect(offsetSize(writer.write(.data(Data(count: 200)))) == 1)
        #expect(offsetSize(writer.write(.data(Data(count: 250)))) == 2)
        #expect(offsetSize(writer.write(.data(Data(count: 70_000)))) == 4)
    }

    @Test func laysObjectsOutDepthFirst() throws {
        let value: PropertyListValue = [["x"], "y", ["k": "v"]]
        let plist = writer.write(value)
        let expectedObjects: [[UInt8]] = [
            [0xA3, 0x01, 0x03, 0x04], [0xA1, 0x02], [0x51, 0x78], [0x51, 0x79], [0xD1, 0x05, 0x06], [0x51, 0x6B], [0x51, 0x76],
        ]
        #expect(Array(plist[8..<RawBinaryPlist.tableOffset(of: plist)]) == expectedObjects.flatMap { $0 })
    }

    /// The byte range of object `object`, from the offset table (one-byte offsets).
    func objectRange(_ object: Int, in plist: [UInt8]) -> Range<Int> {
        let table = RawBinaryPlist.tableOffset(of: plist)
        let start = Int(plist[table + object])
        let objectCount = Int(plist[plist.count - 17])  // last byte of the trailer's object count
        let end = object + 1 < objectCount ? Int(plist[table + object + 1]) : table
        return start..<end
    }
}
