import Foundation
import Testing
@testable import PropertyList
import PropertyListFoundation

@Suite("Property lists: Foundation bridge")
struct PropertyListFoundationBridgeTests {
    static let sample: PropertyListValue = [
        "name": "notes.txt",
        "count": 3,
        "zero": 0,
        "one": 1,
        "ratio": 1.0,
        "negativeZero": -0.0,
        "on": true,
        "off": false,
        "when": .date(Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7)),
        "bytes": .data(Data([0, 1, 2, 0xFF])),
        "list": [1, true, 1.0, false, 0, "1", []],
        "nested": ["deeper": ["deepest": [:]]],
        "extremes": [.integer(.min), .integer(.max)],
    ]

    @Test func roundTripsThroughFoundationObjects() throws {
        let back = try PropertyListValue(foundationObject: Self.sample.foundationObject)
        #expect(back.isExactlyEqual(to: Self.sample))
    }

    @Test func foundationWritesWhatTheBridgeGivesAndBooleansStayBooleans() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: Self.sample.foundationObject, format: .binary, options: 0)
        let byReader = try BinaryPropertyListReader().read(data)
        #expect(byReader.isExactlyEqual(to: Self.sample))
        #expect(byReader["on"] == .boolean(true))
        #expect(byReader["one"] == .integer(1))
        #expect(byReader["ratio"] == .real(1))

        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        let byFoundation = try PropertyListValue(foundationObject: object)
        #expect(byFoundation.isExactlyEqual(to: Self.sample))
        #expect(byFoundation["list"] == [1, true, 1.0, false, 0, "1", []])
    }

    @Test func tellsBooleansFromNumbers() throws {
        #expect(try PropertyListValue(foundationObject: NSNumber(value: true)) == true)
        #expect(try PropertyListValue(foundationObject: NSNumber(value: false)) == false)
        #expect(try PropertyListValue(foundationObject: true) == true)
        #expect(try PropertyListValue(foundationObject: NSNumber(value: 1)) == 1)
        #expect(try PropertyListValue(foundationObject: NSNumber(value: 0)) == 0)
        #expect(try PropertyListValue(foundationObject: NSNumber(value: Int8(1))) == 1)
        #expect(try PropertyListValue(foundationObject: NSNumber(value: UInt8(1))) == 1)
        #expect(try PropertyListValue(foundationObject: NSNumber(value: 1.0)) == .real(1))
        #expect(try PropertyListValue(foundationObject: NSNumber(value: Float(1.5))) == .real(1.5))
        #expect(try PropertyListValue(foundationObject: NSNumber(value: Int64.min)) == .integer(.min))
        #expect(try PropertyListValue(foundationObject: UInt64(7)) == 7)
        #expect(try PropertyListValue(foundationObject: Float(0.25)) == 0.25)
    }

    @Test func acceptsFoundationClasses() throws {
        let object = NSMutableDictionary()
        object["s"] = NSString(string: "text")
        object["d"] = NSData(data: Data([1, 2]))
        object["t"] = NSDate(timeIntervalSinceReferenceDate: 5)
        object["a"] = NSArray(array: [NSNumber(value: 2), NSString(string: "x")])
        #expect(try PropertyListValue(foundationObject: object) == [
            "s": "text", "d": .data(Data([1, 2])), "t": .date(Date(timeIntervalSinceReferenceDate: 5)), "a": [2, "x"],
        ])
    }

    @Test func refusesNullNamingTheKeyPath() throws {
        let object: [String: Any] = ["outer": ["inner": ["fine", NSNull()]]]
        #expect(throws: PropertyListConversionError.unsupportedType(typeName: "NSNull", keyPath: "outer.inner[1]")) {
            try PropertyListValue(foundationObject: object)
        }
        let error = PropertyListConversionError.unsupportedType(typeName: "NSNull", keyPath: "outer.inner[1]")
        #expect(error.description.contains("NSNull"))
        #expect(error.description.contains("outer.inner[1]"))
    }

    @Test func refusesSetsNonStringKeysAndOtherTypes() throws {
        let set = try #require(throws: PropertyListConversionError.self) {
            try PropertyListValue(foundationObject: ["tags": NSSet(array: ["a"])])
        }
        #expect(set.keyPath == "tags")
        #expect(set.description.contains("NSSet"))

        #expect(throws: PropertyListConversionError.nonStringKey(keyTypeName: "Int", keyPath: "map")) {
            try PropertyListValue(foundationObject: ["map": [1: "one"] as [AnyHashable: Any]])
        }
        #expect(throws: PropertyListConversionError.unsupportedType(typeName: "URL", keyPath: "")) {
            try PropertyListValue(foundationObject: URL(fileURLWithPath: "/tmp"))
        }
        #expect(throws: PropertyListConversionError.integerOutOfRange(value: "18446744073709551615", keyPath: "[0]")) {
            try PropertyListValue(foundationObject: [NSNumber(value: UInt64.max)])
        }
    }
}
