import FoundationEssentials

// MARK: - Literals

extension PropertyListValue: ExpressibleByStringLiteral {
    /// A `.string` from a string literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    /// An `.integer` from an integer literal.
    public init(integerLiteral value: Int) {
        self = .integer(value)
    }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    /// A `.real` from a floating-point literal.
    public init(floatLiteral value: Double) {
        self = .real(value)
    }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    /// A `.boolean` from `true` or `false`.
    public init(booleanLiteral value: Bool) {
        self = .boolean(value)
    }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    /// An `.array` from an array literal.
    public init(arrayLiteral elements: PropertyListValue...) {
        self = .array(elements)
    }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    /// A `.dictionary` from a dictionary literal; like `Dictionary`, duplicate keys are a programming error.
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(uniqueKeysWithValues: elements))
    }
}

// MARK: - Typed accessors

extension PropertyListValue {
    /// The string, when this is a `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, when this is an `.integer` (a `.real` or `.boolean` gives nil; nothing is converted).
    public var intValue: Int? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The double, when this is a `.real` (an `.integer` gives nil; nothing is converted).
    public var doubleValue: Double? {
        if case .real(let value) = self { value } else { nil }
    }

    /// The boolean, when this is a `.boolean` (an `.integer` 0 or 1 gives nil).
    public var boolValue: Bool? {
        if case .boolean(let value) = self { value } else { nil }
    }

    /// The date, when this is a `.date`.
    public var dateValue: Date? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The bytes, when this is a `.data`.
    public var dataValue: Data? {
        if case .data(let value) = self { value } else { nil }
    }

    /// The elements, when this is an `.array`.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The entries, when this is a `.dictionary`.
    public var dictionaryValue: [String: PropertyListValue]? {
        if case .dictionary(let value) = self { value } else { nil }
    }

    /// The value under `key` when this is a dictionary that has it; nil otherwise.
    public subscript(key: String) -> PropertyListValue? {
        dictionaryValue?[key]
    }
}

// MARK: - Description

extension PropertyListValue: CustomStringConvertible {
    /// A short, readable rendering: `["count": 3, "name": "notes", "on": true]`.
    ///
    /// Strings are quoted, dates are ISO 8601 in UTC, data is hex (abbreviated past
    /// 16 bytes), and dictionary keys are sorted so the text is stable.
    public var description: String {
        var text = ""
        append(to: &text)
        return text
    }

    private func append(to text: inout String) {
        switch self {
        case .string(let value):
            text += value.debugDescription
        case .integer(let value):
            text += String(value)
        case .real(let value):
            text += String(value)
        case .boolean(let value):
            text += value ? "true" : "false"
        case .date(let value):
            text += Self.iso8601(value)
        case .data(let value):
            text += Self.hex(value)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += ", " }
                element.append(to: &text)
            }
            text += "]"
        case .dictionary(let entries):
            guard !entries.isEmpty else {
                text += "[:]"
                return
            }
            text += "["
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { text += ", " }
                text += key.debugDescription
                text += ": "
                entries[key]?.append(to: &text)
            }
            text += "]"
        }
    }

    private static func iso8601(_ date: Date) -> String {
        // Years 1 through 9999 as ISO 8601; beyond them the formatter's text means nothing.
        let seconds = date.timeIntervalSinceReferenceDate
        guard (-63_113_904_000...252_423_993_599).contains(seconds) else {
            return "date(\(seconds) s since 2001)"
        }
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private static func hex(_ data: Data) -> String {
        let shown = 16
        let digits = data.prefix(shown).map { byte in
            let text = String(byte, radix: 16)
            return byte < 0x10 ? "0" + text : text
        }.joined()
        return data.count > shown ? "<\(digits)… \(data.count) bytes>" : "<\(digits)>"
    }
}
