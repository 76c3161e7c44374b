/// A coding key made at run time: a dictionary key, an array index, or `super`.
struct PropertyListCodingKey: CodingKey, Hashable, Sendable {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `superEncoder()` and `superDecoder()` use, as Foundation's coders name it.
    static let `super` = PropertyListCodingKey(stringValue: "super")
}
