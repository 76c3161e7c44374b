/// Why a Foundation object could not become a ``PropertyListValue``.
///
/// Every case names the offending key path, written as `userInfo.items[2].name`
/// (the empty path is the root object itself).
public enum PropertyListConversionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The object at `keyPath` has a type that is not one of the eight plist types (e.g. `NSNull`, `NSSet`).
    case unsupportedType(typeName: String, keyPath: String)
    /// A dictionary at `keyPath` has a key that is not a string.
    case nonStringKey(keyTypeName: String, keyPath: String)
    /// The number at `keyPath` is an integer outside `Int.min...Int.max` (e.g. `UInt64.max`).
    case integerOutOfRange(value: String, keyPath: String)

    /// The key path the error is about; empty for the root object.
    public var keyPath: String {
        switch self {
        case .unsupportedType(_, let keyPath), .nonStringKey(_, let keyPath), .integerOutOfRange(_, let keyPath):
            keyPath
        }
    }

    /// What went wrong and where, in one sentence.
    public var description: String {
        let place = keyPath.isEmpty ? "at the root" : "at `\(keyPath)`"
        switch self {
        case .unsupportedType(let typeName, _):
            return "The value \(place) is a \(typeName), which is not a property-list type "
                + "(string, integer, real, boolean, date, data, array, dictionary)."
        case .nonStringKey(let keyTypeName, _):
            return "The dictionary \(place) has a key of type \(keyTypeName); property-list dictionary keys must be strings."
        case .integerOutOfRange(let value, _):
            return "The integer \(place) is \(value), outside the range a property-list integer can hold (\(Int.min)...\(Int.max))."
        }
    }
}
