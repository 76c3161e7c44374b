import FoundationEssentials

/// A ``PropertyListValue`` can sit inside a `Codable` type, e.g. a `userInfo: [String: PropertyListValue]` field.
///
/// With ``PropertyListValueEncoder`` and ``PropertyListValueDecoder`` the value
/// passes through unchanged. Other coders get a best effort: each case is written
/// through its Swift type, and reading tries boolean, integer, real, string, date,
/// data, array and dictionary in that order — so a coder whose format has no date
/// or data type (JSON) gives back a number or a string for them.
extension PropertyListValue: Codable {
    /// Writes the value through the Swift type of its case.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .dictionary(let entries):
            var container = encoder.container(keyedBy: PropertyListCodingKey.self)
            for (key, value) in entries {
                try container.encode(value, forKey: PropertyListCodingKey(stringValue: key))
            }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .real(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .boolean(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .date(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .data(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    /// Reads a value, taking it as it is from ``PropertyListValueDecoder`` and guessing its case from other decoders.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? PropertyListValueDecoder.ValueDecoder {
            self = try decoder.present()
            return
        }
        if let container = try? decoder.container(keyedBy: PropertyListCodingKey.self) {
            var entries: [String: PropertyListValue] = [:]
            for key in container.allKeys {
                entries[key.stringValue] = try container.decode(PropertyListValue.self, forKey: key)
            }
            self = .dictionary(entries)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [PropertyListValue] = []
            while !container.isAtEnd {
                elements.append(try container.decode(PropertyListValue.self))
            }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Date.self) {
            self = .date(value)
        } else if let value = try? container.decode(Data.self) {
            self = .data(value)
        } else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "The value is none of the eight property-list types."
            ))
        }
    }
}
