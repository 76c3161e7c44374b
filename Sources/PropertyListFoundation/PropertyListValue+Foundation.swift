import Foundation
import PropertyList

extension PropertyListValue {
    /// Converts a Foundation property-list object (as `PropertyListSerialization` returns) without loss.
    ///
    /// Accepts `String`/`NSString`, `Bool`, `NSNumber` (booleans are told apart from
    /// numbers by their class, integers from reals by their stored type), native
    /// integer and floating-point values, `Date`, `Data`, arrays, and dictionaries
    /// whose keys are all strings. Anything else — `NSNull`, sets, non-string keys,
    /// integers beyond `Int` — throws an error naming the type and the key path.
    public init(foundationObject: Any) throws(PropertyListConversionError) {
        self = try Self.convert(foundationObject, path: "")
    }

    /// The value as Foundation objects (`String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]`, `[String: Any]`),
    /// ready for `PropertyListSerialization`.
    public var foundationObject: Any {
        switch self {
        case .string(let value): value
        case .integer(let value): value
        case .real(let value): value
        case .boolean(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let elements): elements.map(\.foundationObject) as [Any]
        case .dictionary(let entries): entries.mapValues(\.foundationObject) as [String: Any]
        }
    }

    private static func convert(_ object: Any, path: String) throws(PropertyListConversionError) -> PropertyListValue {
        // Order matters: on Linux an NSNumber 1 casts to `Bool` and a `Bool` casts to NSNumber,
        // so numbers are classified by their NSNumber class and stored type before anything else.
        if let string = object as? String {
            return .string(string)
        }
        if let number = object as? NSNumber {
            return try convert(number, path: path)
        }
        if let date = object as? Date {
            return .date(date)
        }
        if let data = object as? Data {
            return .data(data)
        }
        if let array = object as? [Any] {
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                elements.append(try convert(element, path: path + "[\(index)]"))
            }
            return .array(elements)
        }
        if let dictionary = object as? [AnyHashable: Any] {
            var entries: [String: PropertyListValue] = [:]
            entries.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                guard let key = key.base as? String else {
                    throw .nonStringKey(keyTypeName: typeName(of: key.base), keyPath: path)
                }
                entries[key] = try convert(element, path: path.isEmpty ? key : path + "." + key)
            }
            return .dictionary(entries)
        }
        throw .unsupportedType(typeName: typeName(of: object), keyPath: path)
    }

    private static func convert(_ number: NSNumber, path: String) throws(PropertyListConversionError) -> PropertyListValue {
        if ObjectIdentifier(type(of: number)) == booleanNumberClass {
            return .boolean(number.boolValue)
        }
        switch String(cString: number.objCType) {
        case "f", "d":
            return .real(number.doubleValue)
        case "c", "C", "s", "S", "i", "I", "l", "L", "q", "Q":
            guard let value = Int(exactly: number) else {
                throw .integerOutOfRange(value: number.stringValue, keyPath: path)
            }
            return .integer(value)
        case let code:
            throw .unsupportedType(typeName: "NSNumber of type \(code)", keyPath: path)
        }
    }

    /// The class Foundation uses for boolean NSNumbers (`__NSCFBoolean` on Linux and Darwin).
    private static let booleanNumberClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    private static func typeName(of object: Any) -> String {
        String(describing: type(of: object))
    }
}
