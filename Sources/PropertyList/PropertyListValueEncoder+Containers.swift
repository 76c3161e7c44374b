import FoundationEssentials

/// The encoder's three containers: keyed, unkeyed and single-value.
extension PropertyListValueEncoder {
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ValueEncoder
        let storage: KeyedStorage
        var codingPath: [any CodingKey] { encoder.codingPath }

        /// A fresh child encoder stored under `key`, replacing what was there.
        private func child(_ key: some CodingKey) -> ValueEncoder {
            let child = encoder.child(key)
            storage.entries[key.stringValue] = child.node
            return child
        }

        mutating func encodeNil(forKey key: Key) throws {
            child(key).node.content = .null
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try child(key).encodeValue(value)
        }

        mutating func encode(_ value: Bool, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: String, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try child(key).encodeValue(value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try child(key).encodeValue(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            child(key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            child(key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            child(PropertyListCodingKey.super)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            child(key)
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: ValueEncoder
        let storage: UnkeyedStorage
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { storage.elements.count }

        /// A fresh child encoder appended as the next element.
        private func next() -> ValueEncoder {
            let child = encoder.child(PropertyListCodingKey(intValue: storage.elements.count))
            storage.elements.append(child.node)
            return child
        }

        mutating func encodeNil() throws {
            throw EncodingError.invalidValue(Optional<Any>.none as Any, EncodingError.Context(
                codingPath: codingPath + [PropertyListCodingKey(intValue: count)],
                debugDescription: "An array cannot hold nil: property lists have no null."
            ))
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let child = next()
            try child.encodeValue(value)
            if case .null = child.node.content {
                storage.elements.removeLast()
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: child.codingPath,
                    debugDescription: "An array cannot hold nil: property lists have no null."
                ))
            }
        }

        mutating func encode(_ value: Bool) throws { try next().encodeValue(value) }
        mutating func encode(_ value: String) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Double) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Float) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Int) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Int8) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Int16) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Int32) throws { try next().encodeValue(value) }
        mutating func encode(_ value: Int64) throws { try next().encodeValue(value) }
        mutating func encode(_ value: UInt) throws { try next().encodeValue(value) }
        mutating func encode(_ value: UInt8) throws { try next().encodeValue(value) }
        mutating func encode(_ value: UInt16) throws { try next().encodeValue(value) }
        mutating func encode(_ value: UInt32) throws { try next().encodeValue(value) }
        mutating func encode(_ value: UInt64) throws { try next().encodeValue(value) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            next().container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            next().unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            next()
        }
    }

    /// Where leaf values become plist values.
    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: ValueEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }

        private func set(_ value: PropertyListValue) {
            encoder.node.content = .value(value)
        }

        mutating func encodeNil() throws { encoder.node.content = .null }
        mutating func encode(_ value: Bool) throws { set(.boolean(value)) }
        mutating func encode(_ value: String) throws { set(.string(value)) }
        mutating func encode(_ value: Double) throws { set(.real(value)) }
        mutating func encode(_ value: Float) throws { set(.real(Double(value))) }
        mutating func encode(_ value: Int) throws { set(.integer(value)) }
        mutating func encode(_ value: Int8) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: Int16) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: Int32) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: Int64) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: UInt) throws { set(try encoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: UInt16) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: UInt32) throws { set(.integer(Int(value))) }
        mutating func encode(_ value: UInt64) throws { set(try encoder.integer(value)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try encoder.encodeValue(value)
        }
    }
}
