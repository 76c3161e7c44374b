import FoundationEssentials
import PropertyList
import HandoffWire

extension PropertyListValue {
    /// Reads JSON into plist values: objects become dictionaries, whole numbers integers,
    /// other numbers reals, `true`/`false` booleans. JSON `null` has no plist form and is refused.
    public init(json: Data) throws {
        let value = try JSONDecoder().decode(JSONValue.self, from: json)
        guard let plist = value.plist else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "null has no property-list form; leave the key out instead"))
        }
        self = plist
    }

    /// A JSON-compatible Foundation object: dates as ISO 8601 strings, data as base64.
    public var jsonObject: Any {
        switch self {
        case .string(let s): s
        case .integer(let i): i
        case .real(let r): r.isFinite ? r : String(r)
        case .boolean(let b): b
        case .date(let d): d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .data(let d): d.base64EncodedString()
        case .array(let a): a.map(\.jsonObject)
        case .dictionary(let d): d.mapValues(\.jsonObject)
        }
    }

    /// This value as compact JSON text with sorted keys, on one line, carrying no control,
    /// bidi or invisible scalar: those (DEL, C1, U+2028, U+200B, tags, … — every
    /// `PeerText.Hazard`) are written as `\uXXXX` escapes, as JSONSerialization already writes
    /// C0. Read back, every string is exactly the one written.
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(JSONOut(self))) ?? Data("null".utf8)
        return PeerText.escapingHazards(inJSON: String(decoding: data, as: UTF8.self))
    }
}

/// A value as `jsonObject` gives it, for `JSONEncoder`.
private enum JSONOut: Encodable {
    case string(String), integer(Int), real(Double), boolean(Bool)
    case array([JSONOut]), object([String: JSONOut])

    init(_ value: PropertyListValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .real(let r): self = r.isFinite ? .real(r) : .string(String(r))
        case .boolean(let b): self = .boolean(b)
        case .date(let d): self = .string(d.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        case .data(let d): self = .string(d.base64EncodedString())
        case .array(let a): self = .array(a.map(JSONOut.init))
        case .dictionary(let d): self = .object(d.mapValues(JSONOut.init))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let s): try container.encode(s)
        case .integer(let i): try container.encode(i)
        case .real(let r): try container.encode(r)
        case .boolean(let b): try container.encode(b)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

/// JSON as read, before it becomes plist values: `null` included, so that a reader can say
/// where one is.
package enum JSONValue: Decodable, Equatable, Sendable {
    case null
    case string(String), integer(Int), real(Double), boolean(Bool)
    case array([JSONValue]), object([String: JSONValue])

    /// Why `read` refused its bytes: the parser's words when it gave more than "not valid JSON"
    /// ("Unexpected character 'x' around line 1, column 1."), else nil.
    package struct ReadError: Error, Sendable {
        package let reason: String?
    }

    /// Reads one JSON value, a bare number, string or literal included.
    package static func read(_ bytes: Data) throws(ReadError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: bytes)
        } catch let DecodingError.dataCorrupted(context) {
            throw ReadError(reason: (context.underlyingError as? CocoaError)?.userInfo["NSDebugDescription"] as? String)
        } catch {
            throw ReadError(reason: "\(error)")
        }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let b = try? container.decode(Bool.self) { self = .boolean(b) }
        else if let i = try? container.decode(Int.self) { self = .integer(i) }
        else if let r = try? container.decode(Double.self) { self = .real(r) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// Whether a `null` is in it, at any depth.
    package var containsNull: Bool {
        switch self {
        case .null: true
        case .array(let a): a.contains { $0.containsNull }
        case .object(let o): o.values.contains { $0.containsNull }
        default: false
        }
    }

    /// As plist values; nil when a `null` is in it, which has no plist form.
    package var plist: PropertyListValue? {
        switch self {
        case .null: nil
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .real(let r): .real(r)
        case .boolean(let b): .boolean(b)
        case .array(let a):
            a.reduce(into: [PropertyListValue]?([])) { all, element in
                guard let value = element.plist else { return all = nil }
                all?.append(value)
            }.map(PropertyListValue.array)
        case .object(let o):
            o.reduce(into: [String: PropertyListValue]?([:])) { all, element in
                guard let value = element.value.plist else { return all = nil }
                all?[element.key] = value
            }.map(PropertyListValue.dictionary)
        }
    }
}
