import FoundationEssentials

/// Encodes any `Encodable` straight into a ``PropertyListValue``, without going through Foundation.
///
/// Unlike Foundation's `PropertyListEncoder` (which writes a nil optional as the
/// string `"$null"`), a nil optional becomes an absent key. `Date` and `Data` map
/// to their plist types, `URL` to its absolute string, `Float`/`Double` to real,
/// every integer type to integer (a `UInt`/`UInt64` above `Int.max` throws), and a
/// ``PropertyListValue`` inside the value is taken as it is. Dictionaries need
/// `String` (or `Int`) keys to become plist dictionaries. Errors are `EncodingError`s
/// whose context carries the coding path.
public struct PropertyListValueEncoder: Sendable {
    /// Values handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// An encoder with empty `userInfo`.
    public init() {}

    /// The property-list form of `value`; throws `EncodingError.invalidValue` for what a plist cannot hold.
    public func encode(_ value: some Encodable) throws -> PropertyListValue {
        let node = Node(codingPath: [])
        let encoder = ValueEncoder(node: node, userInfo: userInfo.mapValues { $0 as Any })
        try encoder.encodeValue(value)
        guard let result = try node.resolve() else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [],
                debugDescription: "The top-level value is nil, which has no property-list representation."
            ))
        }
        return result
    }
}

extension PropertyListValueEncoder {
    /// One value being built: empty until something is encoded into it.
    final class Node {
        enum Content {
            case empty
            case null
            case value(PropertyListValue)
            case keyed(KeyedStorage)
            case unkeyed(UnkeyedStorage)
        }

        let codingPath: [any CodingKey]
        var content: Content = .empty

        init(codingPath: [any CodingKey]) {
            self.codingPath = codingPath
        }

        /// The finished value; nil for a nil optional, whose key the enclosing dictionary then leaves out.
        func resolve() throws -> PropertyListValue? {
            switch content {
            case .empty:
                // A type whose encode(to:) encodes nothing, as Foundation's encoders treat it.
                return .dictionary([:])
            case .null:
                return nil
            case .value(let value):
                return value
            case .keyed(let storage):
                var entries: [String: PropertyListValue] = [:]
                entries.reserveCapacity(storage.entries.count)
                for (key, child) in storage.entries {
                    if let value = try child.resolve() {
                        entries[key] = value
                    }
                }
                return .dictionary(entries)
            case .unkeyed(let storage):
                var elements: [PropertyListValue] = []
                elements.reserveCapacity(storage.elements.count)
                for child in storage.elements {
                    guard let value = try child.resolve() else {
                        throw EncodingError.invalidValue(Optional<Any>.none as Any, EncodingError.Context(
                            codingPath: child.codingPath,
                            debugDescription: "An array cannot hold nil: property lists have no null."
                        ))
                    }
                    elements.append(value)
                }
                return .array(elements)
            }
        }
    }

    final class KeyedStorage {
        var entries: [String: Node] = [:]
    }

    final class UnkeyedStorage {
        var elements: [Node] = []
    }

    /// The `Encoder` handed to `encode(to:)`; it writes into one node.
    final class ValueEncoder: Encoder {
        let node: Node
        let userInfo: [CodingUserInfoKey: Any]
        var codingPath: [any CodingKey] { node.codingPath }

        init(node: Node, userInfo: [CodingUserInfoKey: Any]) {
            self.node = node
            self.userInfo = userInfo
        }

        /// Encodes `value` into this encoder's node, mapping the types a plist holds natively.
        func encodeValue(_ value: some Encodable) throws {
            switch value {
            case let value as PropertyListValue: node.content = .value(value)
            case let date as Date: node.content = .value(.date(date))
            case let data as Data: node.content = .value(.data(data))
            case let url as URL: node.content = .value(.string(url.absoluteString))
            default: try value.encode(to: self)
            }
        }

        /// A child encoder for the value under `key`.
        func child(_ key: any CodingKey) -> ValueEncoder {
            ValueEncoder(node: Node(codingPath: codingPath + [key]), userInfo: userInfo)
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let storage: KeyedStorage
            if case .keyed(let existing) = node.content {
                storage = existing
            } else {
                storage = KeyedStorage()
                node.content = .keyed(storage)
            }
            return KeyedEncodingContainer(KeyedContainer(encoder: self, storage: storage))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let storage: UnkeyedStorage
            if case .unkeyed(let existing) = node.content {
                storage = existing
            } else {
                storage = UnkeyedStorage()
                node.content = .unkeyed(storage)
            }
            return UnkeyedContainer(encoder: self, storage: storage)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(encoder: self)
        }

        /// The plist integer for `value`, or an error when it is beyond `Int`.
        func integer<T: BinaryInteger>(_ value: T) throws -> PropertyListValue {
            guard let integer = Int(exactly: value) else {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "\(T.self) value \(value) does not fit in a property-list integer (at most \(Int.max))."
                ))
            }
            return .integer(integer)
        }
    }
}
