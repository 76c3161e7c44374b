import Foundation
import Testing
@testable import PropertyList

@Suite("Property lists: Codable bridge")
struct PropertyListCodableTests {
    struct Cursor: Codable, Equatable {
        var line: Int
        var column: UInt16
    }

    struct Session: Codable, Equatable {
        var title: String
        var subtitle: String?
        var count: Int
        var small: Int8
        var ratio: Double
        var scale: Float
        var flag: Bool
        var when: Date
        var blob: Data
        var link: URL?
        var home: URL
        var tags: [String]
        var cursor: Cursor
        var previous: Cursor?
        var history: [Cursor]
        var counts: [String: Int]
        var extra: [String: PropertyListValue]
    }

    static let full = Session(
        title: "notes", subtitle: "draft", count: -3, small: 7, ratio: 0.1, scale: 1.5, flag: true,
        when: Date(timeIntervalSinceReferenceDate: 786_000_000.25), blob: Data([0, 1, 0xFF]),
        link: URL(string: "https://example.com/a?b=c"), home: URL(fileURLWithPath: "/tmp/notes.txt"),
        tags: ["a", "你好"], cursor: Cursor(line: 2, column: 5), previous: Cursor(line: 1, column: 0),
        history: [Cursor(line: 0, column: 0)], counts: ["x": 1], extra: ["any": [1, "two", .date(Date(timeIntervalSinceReferenceDate: 0))]]
    )

    static var sparse: Session {
        var session = full
        session.subtitle = nil
        session.link = nil
        session.previous = nil
        return session
    }

    /// Every string anywhere in a value.
    static func strings(in value: PropertyListValue) -> [String] {
        switch value {
        case .string(let string): [string]
        case .array(let elements): elements.flatMap(strings)
        case .dictionary(let entries): entries.keys.map { $0 } + entries.values.flatMap(strings)
        default: []
        }
    }

    @Test func nilOptionalsBecomeAbsentKeysAndReadBackAsNil() throws {
        let value = try PropertyListValueEncoder().encode(Self.sparse)
        let entries = try #require(value.dictionaryValue)
        #expect(entries["subtitle"] == nil)
        #expect(entries["link"] == nil)
        #expect(entries["previous"] == nil)
        #expect(entries.count == 14)
        #expect(!Self.strings(in: value).contains("$null"))
        #expect(try PropertyListValueDecoder().decode(Session.self, from: value) == Self.sparse)
    }

    @Test func mapsEachTypeToItsPlistType() throws {
        let value = try PropertyListValueEncoder().encode(Self.full)
        #expect(value["title"] == "notes")
        #expect(value["count"] == -3)
        #expect(value["small"] == 7)
        #expect(value["ratio"] == .real(0.1))
        #expect(value["scale"] == .real(1.5))
        #expect(value["flag"] == true)
        #expect(value["when"] == .date(Date(timeIntervalSinceReferenceDate: 786_000_000.25)))
        #expect(value["blob"] == .data(Data([0, 1, 0xFF])))
        #expect(value["link"] == "https://example.com/a?b=c")
        #expect(value["home"] == "file:///tmp/notes.txt")
        #expect(value["cursor"] == ["line": 2, "column": 5])
        #expect(value["history"] == [["line": 0, "column": 0]])
        #expect(value["counts"] == ["x": 1])
        #expect(value["extra"] == ["any": [1, "two", .date(Date(timeIntervalSinceReferenceDate: 0))]])
        #expect(try PropertyListValueDecoder().decode(Session.self, from: value) == Self.full)
    }

    @Test func survivesTheWireRoundTrip() throws {
        let value = try PropertyListValueEncoder().encode(Self.full)
        let read = try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value))
        #expect(try PropertyListValueDecoder().decode(Session.self, from: read) == Self.full)
    }

    @Test func encodesTopLevelScalarsAndCollections() throws {
        let encoder = PropertyListValueEncoder()
        #expect(try encoder.encode(5) == 5)
        #expect(try encoder.encode("x") == "x")
        #expect(try encoder.encode(Float(0.5)) == 0.5)
        #expect(try encoder.encode([1, 2]) == [1, 2])
        #expect(try encoder.encode(["k": [true]]) == ["k": [true]])
        #expect(try encoder.encode([3: "three"]) == ["3": "three"])
        #expect(try encoder.encode(Int64.min) == .integer(.min))
        #expect(try encoder.encode(UInt64(Int.max)) == .integer(.max))
    }

    @Test func refusesWhatAPlistCannotHold() throws {
        struct Big: Encodable { var big: UInt64 }
        let big = try #require(throws: EncodingError.self) { try PropertyListValueEncoder().encode(Big(big: .max)) }
        guard case .invalidValue(_, let context) = big else { Issue.record("\(big)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["big"])

        struct Holes: Encodable { var list: [Int?] }
        let hole = try #require(throws: EncodingError.self) { try PropertyListValueEncoder().encode(Holes(list: [1, nil])) }
        guard case .invalidValue(_, let holeContext) = hole else { Issue.record("\(hole)"); return }
        #expect(holeContext.codingPath.map(\.stringValue) == ["list", "Index 1"])

        #expect(throws: EncodingError.self) { try PropertyListValueEncoder().encode(Int?.none) }
    }

    @Test func anExplicitNilLeavesTheKeyOut() throws {
        struct Explicit: Encodable {
            enum CodingKeys: String, CodingKey { case a, b, c }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encodeNil(forKey: .a)
                try container.encode(Int?.none, forKey: .b)
                try container.encode(1, forKey: .c)
            }
        }
        #expect(try PropertyListValueEncoder().encode(Explicit()) == ["c": 1])
    }

    @Test func decodeErrorsCarryTheCodingPath() throws {
        var value = try PropertyListValueEncoder().encode(Self.full)
        guard case .dictionary(var entries) = value else { Issue.record("not a dictionary"); return }

        entries["cursor"] = ["line": "two", "column": 5]
        value = .dictionary(entries)
        let mismatch = try #require(throws: DecodingError.self) { try PropertyListValueDecoder().decode(Session.self, from: value) }
        guard case .typeMismatch(let type, let context) = mismatch else { Issue.record("\(mismatch)"); return }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(context.codingPath.map(\.stringValue) == ["cursor", "line"])
        #expect(context.debugDescription.contains("string"))

        entries["cursor"] = ["line": 2, "column": 70_000]
        let range = try #require(throws: DecodingError.self) {
            try PropertyListValueDecoder().decode(Session.self, from: .dictionary(entries))
        }
        guard case .dataCorrupted(let rangeContext) = range else { Issue.record("\(range)"); return }
        #expect(rangeContext.codingPath.map(\.stringValue) == ["cursor", "column"])

        entries["cursor"] = ["line": 2]
        let missing = try #require(throws: DecodingError.self) {
            try PropertyListValueDecoder().decode(Session.self, from: .dictionary(entries))
        }
        guard case .keyNotFound(let key, let missingContext) = missing else { Issue.record("\(missing)"); return }
        #expect(key.stringValue == "column")
        #expect(missingContext.codingPath.map(\.stringValue) == ["cursor"])

        entries["cursor"] = ["line": 2, "column": 5]
        entries["history"] = [["line": 0, "column": 0], ["line": true, "column": 0]]
        let inArray = try #require(throws: DecodingError.self) {
            try PropertyListValueDecoder().decode(Session.self, from: .dictionary(entries))
        }
        guard case .typeMismatch(_, let arrayContext) = inArray else { Issue.record("\(inArray)"); return }
        #expect(arrayContext.codingPath.map(\.stringValue) == ["history", "Index 1", "line"])
    }

    @Test func decodesStrictlyWhereMeaningDiffers() throws {
        let decoder = PropertyListValueDecoder()
        #expect(throws: DecodingError.self) { try decoder.decode(Bool.self, from: 1) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: true) }
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: 1.0) }
        #expect(throws: DecodingError.self) { try decoder.decode(UInt.self, from: -1) }
        #expect(throws: DecodingError.self) { try decoder.decode(Float.self, from: 1e300) }
        #expect(throws: DecodingError.self) { try decoder.decode(Date.self, from: 0.0) }
        #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: ["a": 1]) }
        #expect(try decoder.decode(Double.self, from: 3) == 3)
        #expect(try decoder.decode(Int8.self, from: -128) == -128)
        #expect(try decoder.decode(UInt64.self, from: .integer(.max)) == UInt64(Int.max))
        #expect(try decoder.decode([Int?].self, from: [1, 2]) == [1, 2])
        #expect(try decoder.decode(PropertyListValue.self, from: ["k": [1]]) == ["k": [1]])
    }
}
