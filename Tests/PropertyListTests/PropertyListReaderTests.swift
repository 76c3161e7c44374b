import Foundation
import Testing
@testable import PropertyList

@Suite("Binary property-list reader")
struct PropertyListReaderTests {
    let reader = BinaryPropertyListReader()

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "bplist", subdirectory: "Vectors/plist"))
        return Array(try Data(contentsOf: url))
    }

    /// `count` arrays nested in each other, the innermost empty.
    static func nested(_ count: Int) -> PropertyListValue {
        var value: PropertyListValue = []
        for _ in 1..<count {
            value = [value]
        }
        return value
    }

    // MARK: Fuzz reproducers

    @Test func readsTheValidSeed() throws {
        let value = try reader.read(try Self.fixture("seed-valid"))
        let expected: PropertyListValue = [
            "data": .data(Data([1, 2, 3])),
            "text": "你好 world",
            "nested": ["a": [1, 2.5, true]],
            "type": "dev.baton.editing",
            "count": 42,
            "when": .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: 0x41C8_58C3_75A2_4F90))),
        ]
        #expect(plistExactlyEqual(value, expected))
    }

    @Test func rejectsTheSetThatCrashesFoundation() throws {
        #expect(throws: PropertyListReadError.unsupportedObject(marker: 0xCA, object: 0)) {
            try reader.read(try Self.fixture("bplist-set-segv"))
        }
    }

    @Test func rejectsTheReferenceCycleThatOverflowsFoundation() throws {
        let bytes = try Self.fixture("bplist-reference-cycle")
        let error = try #require(throws: PropertyListReadError.self) { try reader.read(bytes) }
        #expect(!error.description.isEmpty)
    }

    @Test func rejectsTheReferenceCycleAloneWhenItsOtherDamageIsRepaired() throws {
        // The reproducer also breaks offsets and a string; put those back and the cycle remains.
        var bytes = try Self.fixture("seed-valid")
        bytes[0x11] = 0x00  // the value of "nested" is object 0, the top dictionary itself
        #expect(throws: PropertyListReadError.cycle(object: 0)) { try reader.read(bytes) }
    }

    // MARK: Limits

    @Test func acceptsDepth32() throws {
        let value = Self.nested(32)
        #expect(try reader.read(BinaryPropertyListWriter().write(value)) == value)
    }

    @Test func rejectsDepth33() {
        #expect(throws: PropertyListReadError.tooDeep(limit: 32)) {
            try reader.read(BinaryPropertyListWriter().write(Self.nested(33)))
        }
    }

    @Test func checksTheDepthOfASharedObjectWhereverItIsUsed() throws {
        // Object 1 is 31 arrays deep. The root holds it directly (depth 32, fine) and then
        // inside another array (depth 33): the second use must be refused although object 1 was already read.
        var objects: [[UInt8]] = [[0xA2, 0x01, 0x20]]
        for index in 1...30 {
            objects.append([0xA1, UInt8(index + 1)])
        }
        objects.append([0xA0])  // object 31, the innermost
        objects.append([0xA1, 0x01])  // object 32, wraps object 1 once more
        let plist = RawBinaryPlist.build(objects)
        #expect(throws: PropertyListReadError.tooDeep(limit: 32)) { try reader.read(plist) }
        let shallower = BinaryPropertyListReader(limits: .init(maxDepth: 33))
        #expect(plistDepth(try shallower.read(plist)) == 33)
    }

    @Test func rejectsMoreObjectsThanTheLimit() {
        let value: PropertyListValue = .array((0..<10).map { .integer($0) })
        let small = BinaryPropertyListReader(limits: .init(maxObjects: 10))
        #expect(throws: PropertyListReadError.tooManyObjects(count: 11, limit: 10)) {
            try small.read(BinaryPropertyListWriter().write(value))
        }
    }

    @Test func rejectsATrailerClaimingTooManyObjects() {
        let plist = RawBinaryPlist.build([[0x09]], objectCount: 70_000)
        #expect(throws: PropertyListReadError.tooManyObjects(count: 70_000, limit: 65_536)) { try reader.read(plist) }
    }

    @Test func rejectsMoreBytesThanTheLimit() {
        let plist = BinaryPropertyListWriter().write(.data(Data(count: 60_000)))
        #expect(throws: PropertyListReadError.tooLarge(bytes: plist.count, limit: 60_000)) { try reader.read(plist) }
    }

    @Test func rejectsASmallFileThatUnfoldsEnormously() throws {
        // Each array holds the next one twice: 30 levels describe 2^30 values in 100 bytes.
        var objects: [[UInt8]] = (0..<30).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x09])
        #expect(throws: PropertyListReadError.tooManyExpandedObjects(limit: 4 * 65_536)) {
            try reader.read(RawBinaryPlist.build(objects))
        }
    }

    @Test func acceptsSharedObjects() throws {
        let plist = RawBinaryPlist.build([[0xA3, 0x01, 0x01, 0x02], [0x53, 0x61, 0x62, 0x63], [0xA1, 0x01]])
        #expect(try reader.read(plist) == ["abc", "abc", ["abc"]])
    }

    // MARK: Structure

    @Test func rejectsAReferenceOutOfRange() {
        let plist = RawBinaryPlist.build([[0xA2, 0x01, 0x05], [0x09]])
        #expect(throws: PropertyListReadError.referenceOutOfRange(object: 0, reference: 5, count: 2)) {
            try reader.read(plist)
        }
    }

    @Test func rejectsAnOffsetOutsideTheObjectArea() {
        // Object 1 claims to start inside the offset table; object 0 inside the header.
        let intoTable = RawBinaryPlist.build([[0xA1, 0x01], [0x09]], offsets: [8, 11])
        #expect(throws: PropertyListReadError.offsetOutOfRange(object: 1, offset: 11)) { try reader.read(intoTable) }
        let intoHeader = RawBinaryPlist.build([[0xA1, 0x01], [0x09]], offsets: [3, 10])
        #expect(throws: PropertyListReadError.offsetOutOfRange(object: 0, offset: 3)) { try reader.read(intoHeader) }
    }

    @Test func rejectsAnObjectRunningPastTheObjectArea() {
        let longString = RawBinaryPlist.build([[0x5A, 0x61, 0x62]])
        #expect(throws: PropertyListReadError.objectOutOfBounds(object: 0)) { try reader.read(longString) }
        let hugeLength = RawBinaryPlist.build([[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
        #expect(throws: PropertyListReadError.objectOutOfBounds(object: 0)) { try reader.read(hugeLength) }
        let hugeArray = RawBinaryPlist.build([[0xDF, 0x13, 0x40, 0, 0, 0, 0, 0, 0, 0]])
        #expect(throws: PropertyListReadError.objectOutOfBounds(object: 0)) { try reader.read(hugeArray) }
    }

    @Test func rejectsCycles() {
        let direct = RawBinaryPlist.build([[0xA1, 0x00]])
        #expect(throws: PropertyListReadError.cycle(object: 0)) { try reader.read(direct) }
        let throughADictionary = RawBinaryPlist.build([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]])
        #expect(throws: PropertyListReadError.cycle(object: 0)) { try reader.read(throughADictionary) }
    }

    @Test(arguments: [
        (UInt8(0xC1), "set"), (0xB1, "ordered set"), (0x80, "UID"), (0x00, "null"), (0x0F, "fill"),
        (0x70, "unknown 7"), (0x90, "unknown 9"), (0xE0, "unknown E"), (0xF0, "unknown F"),
        (0x21, "2-byte real"), (0x15, "32-byte integer"), (0x32, "4-byte date"),
    ])
    func rejectsUnsupportedMarkers(marker: UInt8, name: String) {
        let plist = RawBinaryPlist.build([[marker, 0x01, 0, 0, 0, 0, 0, 0, 0, 0], [0x10, 0x01]])
        #expect(throws: PropertyListReadError.unsupportedObject(marker: marker, object: 0), "\(name)") {
            try reader.read(plist)
        }
    }

    @Test func rejectsNonStringKeys() {
        let plist = RawBinaryPlist.build([[0xD1, 0x01, 0x02], [0x10, 0x01], [0x09]])
        #expect(throws: PropertyListReadError.nonStringKey(object: 0)) { try reader.read(plist) }
    }

    @Test func rejectsDuplicateKeys() {
        let plist = RawBinaryPlist.build([[0xD2, 0x01, 0x02, 0x03, 0x03], [0x51, 0x6B], [0x61, 0x00, 0x6B], [0x09]])
        #expect(throws: PropertyListReadError.duplicateKey("k", object: 0)) { try reader.read(plist) }
    }

    @Test func rejectsInvalidStrings() throws {
        let highByteInASCII = RawBinaryPlist.build([[0x51, 0x80]])
        #expect(throws: PropertyListReadError.invalidString(object: 0)) { try reader.read(highByteInASCII) }
        let loneLeadSurrogate = RawBinaryPlist.build([[0x62, 0xD8, 0x3D, 0x00, 0x61]])
        #expect(throws: PropertyListReadError.invalidString(object: 0)) { try reader.read(loneLeadSurrogate) }
        let loneTrailSurrogate = RawBinaryPlist.build([[0x61, 0xDE, 0x00]])
        #expect(throws: PropertyListReadError.invalidString(object: 0)) { try reader.read(loneTrailSurrogate) }
        let pair = RawBinaryPlist.build([[0x62, 0xD8, 0x3D, 0xDE, 0x00]])
        #expect(try reader.read(pair) == "😀")
    }

    @Test func readsIntegersOfEveryWidth() throws {
        func read(_ object: [UInt8]) throws -> PropertyListValue {
            try reader.read(RawBinaryPlist.build([object]))
        }
        #expect(try read([0x10, 0xFF]) == 255)
        #expect(try read([0x11, 0xFF, 0xFF]) == 65_535)
        #expect(try read([0x12, 0xFF, 0xFF, 0xFF, 0xFF]) == 4_294_967_295)
        #expect(try read([0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == -1)
        #expect(try read([0x14] + [UInt8](repeating: 0xFF, count: 8) + [0x80, 0, 0, 0, 0, 0, 0, 0]) == .integer(.min))
        #expect(try read([0x14] + [UInt8](repeating: 0, count: 8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == .integer(.max))
        #expect(throws: PropertyListReadError.integerOutOfRange(object: 0)) {
            try read([0x14] + [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0xFF, count: 8))
        }
        #expect(try read([0x22] + RawBinaryPlist.bigEndian(UInt64(Float(1.5).bitPattern), width: 4)) == 1.5)
    }

    @Test func rejectsInfiniteDates() {
        let plist = RawBinaryPlist.build([[0x33] + RawBinaryPlist.bigEndian(Double.infinity.bitPattern, width: 8)])
        #expect(throws: PropertyListReadError.invalidDate(object: 0)) { try reader.read(plist) }
    }

    @Test func rejectsTheUInt64ThatFoundationWritesAsA16ByteInteger() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: [UInt64.max], format: .binary, options: 0)
        let error = try #require(throws: PropertyListReadError.self) { try reader.read(data) }
        guard case .integerOutOfRange = error else {
            Issue.record("expected integerOutOfRange, got \(error)")
            return
        }
    }

    // MARK: Header and trailer

    @Test func rejectsWhatIsNotABinaryPlist() {
        #expect(throws: PropertyListReadError.notBinaryPlist) { try reader.read(Array("<?xml version=\"1.0\"?>".utf8)) }
        #expect(throws: PropertyListReadError.notBinaryPlist) { try reader.read(Array("bplist01".utf8) + [UInt8](repeating: 0, count: 40)) }
        #expect(throws: PropertyListReadError.notBinaryPlist) { try reader.read([UInt8]()) }
        #expect(throws: PropertyListReadError.truncated(bytes: 5)) { try reader.read(Array("bplis".utf8)) }
        #expect(throws: PropertyListReadError.truncated(bytes: 41)) { try reader.read(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 33)) }
    }

    @Test func validatesTheTrailer() throws {
        let good = RawBinaryPlist.build([[0xA1, 0x01], [0x09]])
        #expect(try reader.read(good) == [true])
        func tampered(at position: Int, with byte: UInt8) -> [UInt8] {
            var bytes = good
            bytes[bytes.count - 32 + position] = byte
            return bytes
        }
        #expect(throws: PropertyListReadError.invalidOffsetSize(0)) { try reader.read(tampered(at: 6, with: 0)) }
        #expect(throws: PropertyListReadError.invalidOffsetSize(9)) { try reader.read(tampered(at: 6, with: 9)) }
        #expect(throws: PropertyListReadError.invalidReferenceSize(0)) { try reader.read(tampered(at: 7, with: 0)) }
        #expect(throws: PropertyListReadError.invalidReferenceSize(200)) { try reader.read(tampered(at: 7, with: 200)) }
        #expect(throws: PropertyListReadError.invalidObjectCount(0)) { try reader.read(tampered(at: 15, with: 0)) }
        #expect(throws: PropertyListReadError.topObjectOutOfRange(index: 2, count: 2)) { try reader.read(tampered(at: 23, with: 2)) }
        #expect(throws: PropertyListReadError.offsetTableOutOfRange(offset: 12)) { try reader.read(tampered(at: 31, with: 12)) }
        #expect(throws: PropertyListReadError.offsetTableOutOfRange(offset: Int.max)) { try reader.read(tampered(at: 24, with: 0xFF)) }
        #expect(throws: PropertyListReadError.offsetTableOutOfRange(offset: 11)) { try reader.read(tampered(at: 6, with: 2)) }
    }

    @Test func acceptsWideReferencesAndOffsets() throws {
        let plist = RawBinaryPlist.build(
            [[0xA1, 0, 0, 0, 0, 0, 0, 0, 1], [0x51, 0x7A]], referenceSize: 8, offsetSize: 8
        )
        #expect(try reader.read(plist) == ["z"])
    }

    @Test func readsFromDataAndSlices() throws {
        let plist = BinaryPropertyListWriter().write(["k": 1])
        #expect(try reader.read(Data(plist)) == ["k": 1])
        let padded = [0xEE] + plist
        #expect(try reader.read(padded[1...]) == ["k": 1])
    }

    @Test func everyErrorSaysWhatIsWrongInASentence() {
        let errors: [PropertyListReadError] = [
            .tooLarge(bytes: 70_000, limit: 60_000), .notBinaryPlist, .truncated(bytes: 9), .invalidOffsetSize(9),
            .invalidReferenceSize(0), .tooManyObjects(count: 9, limit: 8), .invalidObjectCount(0),
            .topObjectOutOfRange(index: 3, count: 2), .offsetTableOutOfRange(offset: 4), .offsetOutOfRange(object: 1, offset: 2),
            .objectOutOfBounds(object: 1), .referenceOutOfRange(object: 0, reference: 9, count: 2), .cycle(object: 0),
            .tooDeep(limit: 32), .tooManyExpandedObjects(limit: 8), .unsupportedObject(marker: 0xC1, object: 0),
            .nonStringKey(object: 0), .duplicateKey("k", object: 0), .invalidString(object: 0),
            .integerOutOfRange(object: 0), .invalidDate(object: 0),
        ]
        for error in errors {
            #expect(error.description.hasSuffix("."), "\(error)")
        }
        #expect(PropertyListReadError.tooLarge(bytes: 70_000, limit: 60_000).description.contains("70000"))
        #expect(PropertyListReadError.unsupportedObject(marker: 0xC1, object: 4).description.contains("0xC1"))
    }
}
