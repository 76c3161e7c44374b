import Foundation
import Testing
@testable import PropertyList
import PropertyListFoundation

/// Foundation's `PropertyListSerialization`, the canonical writer and the strict reader agree on valid input.
@Suite("Property lists: differential against Foundation")
struct PropertyListDifferentialTests {
    static let valueCount = 3_000

    static func foundationWrite(_ value: PropertyListValue) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .binary, options: 0)
    }

    static func foundationRead(_ bytes: [UInt8]) throws -> PropertyListValue {
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format)
        #expect(format == .binary)
        return try PropertyListValue(foundationObject: object)
    }

    @Test func whatFoundationWritesTheReaderReadsBackEqual() async throws {
        var generator = PlistTestGenerator(seed: 0xBA70_0001)
        let reader = BinaryPropertyListReader(limits: .init(maxBytes: 1 << 20))
        var mismatches = 0
        for index in 0..<Self.valueCount {
            if index % 5 == 0 { await Task.yield() }  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
            let value = generator.value()
            let bytes = try Self.foundationWrite(value)
            let read = try reader.read(bytes)
            if !plistExactlyEqual(read, value) {
                mismatches += 1
                if mismatches <= 3 {
                    Issue.record("value \(index): wrote \(value), read \(read)")
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func whatTheCanonicalWriterWritesFoundationAndTheReaderReadBackEqual() async throws {
        var generator = PlistTestGenerator(seed: 0xBA70_0002)
        let reader = BinaryPropertyListReader(limits: .init(maxBytes: 1 << 20))
        let writer = BinaryPropertyListWriter()
        var mismatches = 0
        for index in 0..<Self.valueCount {
            if index % 5 == 0 { await Task.yield() }  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
            let value = generator.value()
            let bytes = writer.write(value)
            let byFoundation = try Self.foundationRead(bytes)
            let byReader = try reader.read(bytes)
            if !plistExactlyEqual(byFoundation, value) || !plistExactlyEqual(byReader, value) {
                mismatches += 1
                if mismatches <= 3 {
                    Issue.record("value \(index): wrote \(value), Foundation read \(byFoundation), reader read \(byReader)")
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func theCanonicalWriterIsDeterministic() {
        var generator = PlistTestGenerator(seed: 0xBA70_0003)
        let writer = BinaryPropertyListWriter()
        for _ in 0..<500 {
            let value = generator.value()
            // A copy rebuilt from scratch has fresh dictionary storage, and so its own iteration order.
            let rebuilt = Self.rebuilt(value)
            #expect(writer.write(value) == writer.write(rebuilt))
        }
    }

    @Test func dictionariesBuiltInDifferentOrdersGiveTheSameBytes() {
        // (Not both "é" and "e\u{301}": Swift's `==` calls them the same key, and a dictionary
        // keeps whichever spelling came first.)
        let keys = (0..<200).map { "key\($0)" } + ["é", "Z", "a", "😀", "日本", ""]
        var forward: [String: PropertyListValue] = [:]
        for (index, key) in keys.enumerated() {
            forward[key] = .integer(index)
        }
        var backward = [String: PropertyListValue](minimumCapacity: 4_096)
        for (index, key) in keys.enumerated().reversed() {
            backward[key] = .integer(index)
        }
        #expect(forward == backward)
        let writer = BinaryPropertyListWriter()
        #expect(writer.write(.dictionary(forward)) == writer.write(.dictionary(backward)))
    }

    @Test func foundationAndTheReaderAgreeOnSizeBoundaries() throws {
        // Reference and offset widths change at 256 objects and 256 / 65,536 bytes.
        let reader = BinaryPropertyListReader(limits: .init(maxBytes: 1 << 20))
        let values: [PropertyListValue] = [
            .array((0..<254).map { .integer($0) }),
            .array((0..<255).map { .integer($0) }),
            .array((0..<256).map { .integer($0) }),
            .data(Data(count: 200)),
            .data(Data(count: 240)),
            .data(Data(count: 70_000)),
            .string(String(repeating: "ü", count: 40_000)),
        ]
        for value in values {
            let canonical = BinaryPropertyListWriter().write(value)
            #expect(try Self.foundationRead(canonical) == value)
            #expect(try reader.read(canonical) == value)
            #expect(try reader.read(try Self.foundationWrite(value)) == value)
        }
    }

    /// The same value, every dictionary rebuilt with keys inserted in reverse order into a larger table.
    static func rebuilt(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .array(let elements):
            return .array(elements.map(rebuilt))
        case .dictionary(let entries):
            var copy = [String: PropertyListValue](minimumCapacity: entries.count * 8 + 16)
            for (key, element) in entries.reversed() {
                copy[key] = rebuilt(element)
            }
            return .dictionary(copy)
        default:
            return value
        }
    }
}
