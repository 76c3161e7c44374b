import FoundationEssentials
import PropertyList

extension UserActivity {
    /// Sets userInfo from any Encodable whose encoding is a keyed container: each property
    /// becomes a key, a nil optional is left out (never the string `"$null"`).
    public func setUserInfo(from value: some Encodable) throws {
        guard case .dictionary(let dictionary) = try PropertyListValueEncoder().encode(value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "userInfo must encode as a dictionary (a struct or class)"))
        }
        userInfo = dictionary
    }

    /// Reads userInfo back as any Decodable; absent keys read as nil optionals.
    public func userInfo<T: Decodable>(as type: T.Type) throws -> T {
        try PropertyListValueDecoder().decode(type, from: .dictionary(userInfo))
    }
}
