import Foundation
import Testing
@testable import PropertyList

@Suite("Property-list values: literals, accessors, description")
struct PropertyListValueTests {
    @Test func literalsMakeTheMatchingCases() {
        let value: PropertyListValue = ["s": "text", "i": 3, "r": 2.5, "b": false, "a": [1, "x"], "d": [:]]
        #expect(value == .dictionary([
            "s": .string("text"), "i": .integer(3), "r": .real(2.5), "b": .boolean(false),
            "a": .array([.integer(1), .string("x")]), "d": .dictionary([:]),
        ]))
    }

    @Test func accessorsReturnOnlyTheirOwnCase() {
        let date = Date(timeIntervalSinceReferenceDate: 1)
        #expect(PropertyListValue.string("s").stringValue == "s")
        #expect(PropertyListValue.integer(1).intValue == 1)
        #expect(PropertyListValue.real(1).doubleValue == 1)
        #expect(PropertyListValue.boolean(true).boolValue == true)
        #expect(PropertyListValue.date(date).dateValue == date)
        #expect(PropertyListValue.data(Data([1])).dataValue == Data([1]))
        #expect(PropertyListValue.array([1]).arrayValue == [1])
        #expect(PropertyListValue.dictionary(["k": 1]).dictionaryValue == ["k": 1])

        #expect(PropertyListValue.integer(1).doubleValue == nil)
        #expect(PropertyListValue.integer(1).boolValue == nil)
        #expect(PropertyListValue.boolean(true).intValue == nil)
        #expect(PropertyListValue.real(1).intValue == nil)
        #expect(PropertyListValue.string("1").intValue == nil)
        #expect(PropertyListValue.array([]).dictionaryValue == nil)
        #expect(PropertyListValue.dictionary([:]).arrayValue == nil)
        #expect(PropertyListValue.string("x").dataValue == nil)
        #expect(PropertyListValue.data(Data()).dateValue == nil)
        #expect(PropertyListValue.date(date).stringValue == nil)
    }

    @Test func subscriptReadsDictionaryEntries() {
        let value: PropertyListValue = ["peer": ["name": "alice"]]
        #expect(value["peer"]?["name"] == "alice")
        #expect(value["missing"] == nil)
        #expect(PropertyListValue.array([1])["peer"] == nil)
    }

    @Test func descriptionIsShortAndStable() {
        let value: PropertyListValue = [
            "b": [1, 2.5, true], "a": "say \"hi\"", "d": .data(Data([0x0A, 0xFF])), "e": [:], "f": [],
            "t": .date(Date(timeIntervalSince1970: 1_800_000_000.5)),
        ]
        #expect(value.description
            == #"["a": "say \"hi\"", "b": [1, 2.5, true], "d": <0aff>, "e": [:], "f": [], "t": 2027-01-15T08:00:00.500Z]"#)
        #expect(PropertyListValue.data(Data(count: 40)).description == "<00000000000000000000000000000000… 40 bytes>")
        #expect(PropertyListValue.real(-0.0).description == "-0.0")
        #expect(PropertyListValue.integer(.min).description == "-9223372036854775808")
        #expect(PropertyListValue.date(Date(timeIntervalSinceReferenceDate: 1e300)).description == "date(1e+300 s since 2001)")
    }
}
