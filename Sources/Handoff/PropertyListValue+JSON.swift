import Foundation
import PropertyList
import HandoffWire

extension PropertyListValue {
    /// Reads JSON into plist values: objects become dictionaries, whole numbers integers,
    /// other numbers reals, `true`/`false` booleans. JSON `null` has no plist form and is refused.
    public init(json: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: json).plist
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
        let object = jsonObject
        guard JSONSerialization.isValidJSONObject(object) else {
            // A bare scalar: wrap, encode, unwrap.
            let data = (try? JSONSerialization.data(withJSONObject: [object], options: [.sortedKeys])) ?? Data("[]".utf8)
            return PeerText.escapingHazards(inJSON: String(decoding: data.dropFirst().dropLast(), as: UTF8.self))
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return PeerText.escapingHazards(inJSON: String(decoding: data, as: UTF8.self))
    }
}

/// JSON as decoded, before it becomes plist values.
private enum JSONValue: Decodable {
    case string(String), integer(Int), real(Double), boolean(Bool)
    case array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "null has no property-list form; leave the key out instead")
        }
        if let b = try? container.decode(Bool.self) { self = .boolean(b) }
        else if let i = try? container.decode(Int.self) { self = .integer(i) }
        else if let r = try? container.decode(Double.self) { self = .real(r) }
        else if let s = try? container.decode(String.self) { self = .string(s) }
        else if let a = try? container.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    var plist: PropertyListValue {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .real(let r): .real(r)
        case .boolean(let b): .boolean(b)
        case .array(let a): .array(a.map(\.plist))
        case .object(let o): .dictionary(o.mapValues(\.plist))
        }
    }
}
