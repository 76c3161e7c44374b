import FoundationEssentials

/// Decodes any `Decodable` straight from a ``PropertyListValue``, the inverse of ``PropertyListValueEncoder``.
///
/// An absent key reads as nil for an optional and throws `keyNotFound` otherwise.
/// Integer types narrower than `Int` check their range; `Double` and `Float` read a
/// real, or an integer they hold exactly; `Bool` reads only a boolean (never 0 or 1);
/// `URL` reads a string. Errors are `DecodingError`s whose context carries the coding path.
public struct PropertyListValueDecoder: Sendable {
    /// Values handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with empty `userInfo`.
    public init() {}

    /// A `T` read from `value`; throws `DecodingError` when the value does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type, from value: PropertyListValue) throws -> T {
        try ValueDecoder(value: value, codingPath: [], userInfo: userInfo.mapValues { $0 as Any }).decodeValue(type)
    }
}

extension PropertyListValueDecoder {
    /// The `Decoder` handed to `init(from:)`: one value, or none when its key is absent.
    final class ValueDecoder: Decoder {
        /// The value to decode; nil when the key it stands for is absent.
        let value: PropertyListValue?
        let codingPath: [any CodingKey]
        let userInfo: [CodingUserInfoKey: Any]

        init(value: PropertyListValue?, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
            self.value = value
            self.codingPath = codingPath
            self.userInfo = userInfo
        }

        func child(_ value: PropertyListValue?, key: any CodingKey) -> ValueDecoder {
            ValueDecoder(value: value, codingPath: codingPath + [key], userInfo: userInfo)
        }

        /// Decodes `type` from this value, reading the types a plist holds natively without `init(from:)`.
        func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
            if type == PropertyListValue.self {
                return try cast(try present(), to: type)
            }
            if type == Date.self {
                guard case .date(let date) = try present() else { throw mismatch(type) }
                return try cast(date, to: type)
            }
            if type == Data.self {
                guard case .data(let data) = try present() else { throw mismatch(type) }
                return try cast(data, to: type)
            }
            if type == URL.self {
                guard case .string(let string) = try present() else { throw mismatch(type) }
                guard let url = URL(string: string) else {
                    throw DecodingError.dataCorrupted(DecodingError.Context(
                        codingPath: codingPath, debugDescription: "Invalid URL string \(string.debugDescription)."
                    ))
                }
                return try cast(url, to: type)
            }
            return try T(from: self)
        }

        /// The value, or `keyNotFound` when its key is absent.
        func present() throws -> PropertyListValue {
            if let value { return value }
            let key = codingPath.last ?? PropertyListCodingKey(stringValue: "")
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: Array(codingPath.dropLast()),
                debugDescription: "No value for key \(key.stringValue.debugDescription)."
            ))
        }

        func mismatch(_ type: Any.Type) -> DecodingError {
            let found = value.map { "a \($0.typeName)" } ?? "nothing"
            return DecodingError.typeMismatch(type, DecodingError.Context(
                codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(found) instead."
            ))
        }

        private func cast<T>(_ decoded: Any, to type: T.Type) throws -> T {
            guard let result = decoded as? T else { throw mismatch(type) }
            return result
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .dictionary(let entries) = try present() else {
                throw mismatch([String: PropertyListValue].self)
            }
            return KeyedDecodingContainer(KeyedContainer(decoder: self, entries: entries))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = try present() else {
                throw mismatch([PropertyListValue].self)
            }
            return UnkeyedContainer(decoder: self, elements: elements)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer {
            SingleValueContainer(decoder: self)
        }

        // MARK: Leaves

        func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
            guard case .integer(let integer) = try present() else { throw mismatch(type) }
            guard let result = T(exactly: integer) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: codingPath, debugDescription: "The integer \(integer) does not fit in \(type)."
                ))
            }
            return result
        }

        func floatingPoint<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
            switch try present() {
            case .real(let real):
                let result = T(real)
                guard result.isFinite || !real.isFinite else {
                    throw DecodingError.dataCorrupted(DecodingError.Context(
                        codingPath: codingPath, debugDescription: "The real \(real) does not fit in \(type)."
                    ))
                }
                return result
            case .integer(let integer):
                guard let result = T(exactly: integer) else {
                    throw DecodingError.dataCorrupted(DecodingError.Context(
                        codingPath: codingPath, debugDescription: "The integer \(integer) has no exact \(type) value."
                    ))
                }
                return result
            default:
                throw mismatch(type)
            }
        }
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ValueDecoder
        let entries: [String: PropertyListValue]
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { entries.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool {
            entries[key.stringValue] != nil
        }

        /// An absent key is nil: that is how ``PropertyListValueEncoder`` writes a nil optional.
        func decodeNil(forKey key: Key) throws -> Bool {
            !contains(key)
        }

        private func child(_ key: some CodingKey) -> ValueDecoder {
            decoder.child(entries[key.stringValue], key: key)
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try child(key).decodeValue(type)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeValue(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeValue(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeValue(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decodeValue(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeValue(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeValue(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeValue(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeValue(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeValue(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeValue(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeValue(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeValue(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeValue(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeValue(type) }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try child(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            child(PropertyListCodingKey.super)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            child(key)
        }
    }

    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: ValueDecoder
        let elements: [PropertyListValue]
        private(set) var currentIndex = 0
        var codingPath: [any CodingKey] { decoder.codingPath }
        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        init(decoder: ValueDecoder, elements: [PropertyListValue]) {
            self.decoder = decoder
            self.elements = elements
        }

        /// The decoder for the current element, moving past it; throws `valueNotFound` at the end.
        private mutating func next(_ type: Any.Type) throws -> ValueDecoder {
            let key = PropertyListCodingKey(intValue: currentIndex)
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(type, DecodingError.Context(
                    codingPath: codingPath + [key], debugDescription: "The array has only \(elements.count) elements."
                ))
            }
            currentIndex += 1
            return decoder.child(elements[currentIndex - 1], key: key)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(Optional<Any>.self, DecodingError.Context(
                    codingPath: codingPath + [PropertyListCodingKey(intValue: currentIndex)],
                    debugDescription: "The array has only \(elements.count) elements."
                ))
            }
            return false  // Property lists have no null.
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try next(type).decodeValue(type)
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decodeValue(type) }
        mutating func decode(_ type: String.Type) throws -> String { try next(type).decodeValue(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decodeValue(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try next(type).decodeValue(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decodeValue(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decodeValue(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decodeValue(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decodeValue(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decodeValue(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decodeValue(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decodeValue(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decodeValue(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decodeValue(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decodeValue(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next([String: PropertyListValue].self).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try next([PropertyListValue].self).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            try next(PropertyListValue.self)
        }
    }

    /// Where leaf values are read.
    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: ValueDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool {
            decoder.value == nil
        }

        func decode(_ type: Bool.Type) throws -> Bool {
            guard case .boolean(let value) = try decoder.present() else { throw decoder.mismatch(type) }
            return value
        }

        func decode(_ type: String.Type) throws -> String {
            guard case .string(let value) = try decoder.present() else { throw decoder.mismatch(type) }
            return value
        }

        func decode(_ type: Double.Type) throws -> Double { try decoder.floatingPoint(type) }
        func decode(_ type: Float.Type) throws -> Float { try decoder.floatingPoint(type) }
        func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decoder.decodeValue(type)
        }
    }
}
