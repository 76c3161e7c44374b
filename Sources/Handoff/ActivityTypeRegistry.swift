import FoundationEssentials
import PropertyList
import HandoffWire

/// The activity types a program declares, read from an Info.plist-style file.
///
/// `NSUserActivityTypes` lists the types; `BatonActivitySchemas` maps a type to a dictionary
/// from userInfo key to a plist type name, with an optional `BatonRequiredKeys` array.
/// Only declared types can be published or continued.
///
/// An app's own Info.plist can serve: `NSUserActivityTypes` there may also list intent class
/// names (`OrderSoupIntent`, `INStartAudioCallIntent`) or entries with Xcode build variables
/// (`$(PRODUCT_BUNDLE_IDENTIFIER).counter`), which Baton cannot continue. Such an entry is
/// skipped, not refused, and listed in ``skipped`` so that a program can say so. Every other
/// key of the file is ignored.
public struct ActivityTypeRegistry: Equatable, Sendable {
    /// Declared types, in file order.
    public private(set) var declaredTypes: [String]
    public private(set) var schemas: [String: ActivitySchema]
    /// The `NSUserActivityTypes` entries that were left out, in file order, each with why.
    public private(set) var skipped: [SkippedEntry] = []

    /// An `NSUserActivityTypes` entry that is not a reverse-DNS activity type, left out of the registry.
    public struct SkippedEntry: Equatable, Sendable, CustomStringConvertible {
        public enum Reason: Equatable, Sendable {
            /// A bare name such as `OrderSoupIntent`: an intent class, which Apple lists there too.
            case intentClassName
            /// It holds `$(…)`, which only Xcode expands when it builds the app.
            case buildVariable
            /// Anything else that is not reverse-DNS.
            case notReverseDNS
        }

        /// The entry as the file has it.
        public var entry: String
        public var reason: Reason
        /// The registry file, as named in messages.
        public var path: String

        public init(entry: String, reason: Reason, path: String) {
            self.entry = entry
            self.reason = reason
            self.path = path
        }

        /// Why the entry is not declared, and what to do if it was meant to be.
        public var description: String {
            let why: String
            switch reason {
            case .intentClassName:
                why = "it is not a reverse-DNS activity type (an intent class name?), and Baton continues only reverse-DNS types such as dev.baton.counter"
            case .buildVariable:
                why = "it holds an Xcode build variable, which only Xcode expands; write the expanded type, e.g. com.example.app.counter, to continue it with Baton"
            case .notReverseDNS:
                why = "it is not a reverse-DNS activity type such as dev.baton.counter"
            }
            return "warning: the activity registry \(path) lists '\(entry)' in NSUserActivityTypes; skipped: \(why)."
        }

        /// Why `entry` is not a type Baton can use.
        static func reason(for entry: String) -> Reason {
            if entry.contains("$(") || entry.contains("${") { return .buildVariable }
            let identifier = !entry.isEmpty && entry.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
            }
            return identifier ? .intentClassName : .notReverseDNS
        }
    }

    /// Why a registry file could not be used.
    public enum LoadError: Error, Equatable, Sendable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case notAPropertyList(path: String, reason: String)
        case missingTypes(path: String)
        case wrongType(path: String, key: String, expected: String)
        case unknownPlistType(path: String, type: String, key: String, value: String)
        case schemaForUndeclaredType(path: String, type: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let reason):
                return "Cannot read the activity registry \(path): \(reason)."
            case .notAPropertyList(let path, let reason):
                return "The activity registry \(path) is not a property list (\(reason)); it must be an Info.plist-style XML or binary plist."
            case .missingTypes(let path):
                return "The activity registry \(path) has no NSUserActivityTypes array of strings; declare the types this program can continue there."
            case .wrongType(let path, let key, let expected):
                return "In the activity registry \(path), \(key) must be \(expected)."
            case .unknownPlistType(let path, let type, let key, let value):
                let names = PropertyListType.allCases.map(\.rawValue).joined(separator: ", ")
                return "In the activity registry \(path), the schema of \(type) gives key '\(key)' the type '\(value)'; use one of \(names)."
            case .schemaForUndeclaredType(let path, let type):
                return "The activity registry \(path) has a schema for \(type), which NSUserActivityTypes does not declare; declare it or remove the schema."
            }
        }
    }

    public init(declaredTypes: [String], schemas: [String: ActivitySchema] = [:]) {
        self.declaredTypes = declaredTypes
        self.schemas = schemas
    }

    /// Reads a registry file (XML or binary plist).
    public init(contentsOf url: URL) throws(LoadError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadable(path: url.path, reason: PlainText.reason(error))
        }
        try self.init(data: data, path: url.path)
    }

    /// Parses a registry from bytes; `path` names it in errors.
    public init(data: Data, path: String = "(registry)") throws(LoadError) {
        let root = try Self.parse(data, path: path)
        guard case .dictionary(let top) = root else {
            throw .wrongType(path: path, key: "the root", expected: "a dictionary")
        }
        guard case .array(let typeValues)? = top["NSUserActivityTypes"] else { throw .missingTypes(path: path) }
        var declared: [String] = []
        var skipped: [SkippedEntry] = []
        for value in typeValues {
            guard case .string(let type) = value else { throw .missingTypes(path: path) }
            guard Self.isValidActivityType(type) else {
                skipped.append(SkippedEntry(entry: type, reason: SkippedEntry.reason(for: type), path: path))
                continue
            }
            if !declared.contains(type) { declared.append(type) }
        }
        var schemas: [String: ActivitySchema] = [:]
        if let schemaRoot = top["BatonActivitySchemas"] {
            guard case .dictionary(let byType) = schemaRoot else {
                throw .wrongType(path: path, key: "BatonActivitySchemas", expected: "a dictionary from activity type to schema")
            }
            for (type, schemaValue) in byType {
                guard declared.contains(type) else { throw .schemaForUndeclaredType(path: path, type: type) }
                guard case .dictionary(let entries) = schemaValue else {
                    throw .wrongType(path: path, key: "BatonActivitySchemas.\(type)", expected: "a dictionary from userInfo key to type name")
                }
                var schema = ActivitySchema()
                for (key, entry) in entries {
                    if key == "BatonRequiredKeys" {
                        guard case .array(let keys) = entry else {
                            throw .wrongType(path: path, key: "BatonActivitySchemas.\(type).BatonRequiredKeys", expected: "an array of strings")
                        }
                        for k in keys {
                            guard case .string(let s) = k else {
                                throw .wrongType(path: path, key: "BatonActivitySchemas.\(type).BatonRequiredKeys", expected: "an array of strings")
                            }
                            schema.requiredKeys.append(s)
                        }
                        continue
                    }
                    guard case .string(let name) = entry else {
                        throw .wrongType(path: path, key: "BatonActivitySchemas.\(type).\(key)", expected: "a type name string")
                    }
                    guard let plistType = PropertyListType(rawValue: name) else {
                        throw .unknownPlistType(path: path, type: type, key: key, value: name)
                    }
                    schema.keyTypes[key] = plistType
                }
                schemas[type] = schema
            }
        }
        self.init(declaredTypes: declared, schemas: schemas)
        self.skipped = skipped
    }

    private static func parse(_ data: Data, path: String) throws(LoadError) -> PropertyListValue {
        let bytes = Array(data)
        if bytes.starts(with: Array("bplist".utf8)) {
            do {
                return try BinaryPropertyListReader(limits: .init(maxBytes: max(bytes.count, 1))).read(bytes)
            } catch {
                throw .notAPropertyList(path: path, reason: "\(error)")
            }
        }
        // Only XML goes to Foundation: it would also take the old OpenStep text format, which
        // is not a registry format, and the less of its parser hostile bytes reach, the better.
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let head = bytes[start...]
        guard head.starts(with: Array("<?xml".utf8)) || head.starts(with: Array("<plist".utf8))
            || head.starts(with: Array("<!DOCTYPE".utf8))
        else {
            throw .notAPropertyList(path: path, reason: "it is neither XML nor a binary plist")
        }
        // FoundationEssentials' XML reader stops the program on bytes that are not UTF-8 (found
        // by the registry fuzzer): they are refused here first.
        guard String(validating: head, as: UTF8.self) != nil else {
            throw .notAPropertyList(path: path, reason: "it is not UTF-8 text")
        }
        do {
            // A registry holds strings, booleans, arrays and dictionaries, which the decoder
            // tells apart (it reads <real>1.0</real> as an integer, which no registry key is).
            return try PropertyListDecoder().decode(PropertyListValue.self, from: data)
        } catch let error as DecodingError {
            throw .notAPropertyList(path: path, reason: Self.reason(error))
        } catch {
            throw .notAPropertyList(path: path, reason: "\(error)")
        }
    }

    /// What the XML reader said was wrong, without the decoder's wrapping.
    private static func reason(_ error: DecodingError) -> String {
        guard case .dataCorrupted(let context) = error else { return "\(error)" }
        if let underlying = context.underlyingError as? CocoaError, let said = underlying.userInfo["NSDebugDescription"] as? String {
            return said
        }
        return context.debugDescription
    }

    /// Reverse-DNS: at least two dot-separated labels of letters, digits, `-` and `_`
    /// (the wire's rule, ``ActivityRecord/isValidActivityType(_:)``).
    public static func isValidActivityType(_ type: String) -> Bool { ActivityRecord.isValidActivityType(type) }

    /// Whether this program declares `type`.
    public func isDeclared(_ type: String) -> Bool { declaredTypes.contains(type) }

    /// Checks that a record of `type` may be published or continued: declared, its
    /// userInfo of the schema's types, and every required key present.
    public func validate(
        type: String, userInfo: [String: PropertyListValue], requiredKeys: [String] = []
    ) throws(HandoffError) {
        guard isDeclared(type) else { throw .undeclaredType(type: type, declared: declaredTypes) }
        let schema = schemas[type] ?? ActivitySchema()
        try schema.validate(type: type, userInfo: userInfo, alsoRequired: requiredKeys)
    }
}
