import PropertyList
/// The userInfo a declared activity type must carry: a plist type per key, and the keys required.
public struct ActivitySchema: Equatable, Sendable {
    /// The plist type each known key must have; keys not listed may hold anything.
    public var keyTypes: [String: PropertyListType]
    /// Keys that must be present.
    public var requiredKeys: [String]

    public init(keyTypes: [String: PropertyListType] = [:], requiredKeys: [String] = []) {
        self.keyTypes = keyTypes
        self.requiredKeys = requiredKeys
    }

    /// Checks types first (sorted by key, so the error is stable), then required keys.
    public func validate(
        type: String, userInfo: [String: PropertyListValue], alsoRequired: [String] = []
    ) throws(HandoffError) {
        for key in keyTypes.keys.sorted() {
            guard let value = userInfo[key], let expected = keyTypes[key] else { continue }
            if value.typeName != expected {
                throw .schemaViolation(type: type, key: key, expected: expected, actual: value.typeName)
            }
        }
        var missing: [String] = []
        for key in requiredKeys + alsoRequired where userInfo[key] == nil && !missing.contains(key) {
            missing.append(key)
        }
        if !missing.isEmpty { throw .missingRequiredKeys(type: type, keys: missing) }
    }
}
