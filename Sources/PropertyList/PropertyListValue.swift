import FoundationEssentials

/// A value of one of the eight property-list types — the only values a userInfo may hold.
///
/// Integers are signed 64-bit; reals are doubles; dictionaries have string keys.
/// Sets, UIDs and null have no case here, so they cannot be put into a record.
public enum PropertyListValue: Hashable, Sendable {
    case string(String)
    case integer(Int)
    case real(Double)
    case boolean(Bool)
    case date(Date)
    case data(Data)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

extension PropertyListValue {
    /// The name of this value's plist type, as schemas and error messages spell it.
    public var typeName: PropertyListType {
        switch self {
        case .string: .string
        case .integer: .integer
        case .real: .real
        case .boolean: .boolean
        case .date: .date
        case .data: .data
        case .array: .array
        case .dictionary: .dictionary
        }
    }
}

/// The eight property-list types, named as registry schemas name them.
public enum PropertyListType: String, Sendable, CaseIterable, CustomStringConvertible {
    case string, integer, real, boolean, date, data, array, dictionary
    public var description: String { rawValue }
}
