import PropertyList

extension ShellMessage {
    /// Why bytes are not a shell message.
    public enum ReadError: Error, Equatable {
        /// Not a binary property list within the limits.
        case notAPropertyList
        /// A known kind without a key it needs, a key of another type, or a value out of range.
        case malformed(String)
        /// A kind this program does not know: skipped, not an error of the stream.
        case unknownKind
    }

    /// Reads a message strictly: hostile bytes are an error, never a crash.
    ///
    /// The messages Baton writes are canonical plists, read in place (`BinaryPropertyListView`):
    /// that view accepts only what the strict reader accepts, and gives the same values, so
    /// the message read from it is the one the strict reader's tree gives, and so is the error.
    /// Other bytes are read by the strict reader.
    public init(bytes: [UInt8]) throws(ReadError) {
        let limits = BinaryPropertyListReader.Limits(maxObjects: 1 << 20, maxBytes: Self.maximumBytes)
        if let view = BinaryPropertyListView(bytes, limits: limits) {
            guard view.kind(view.top) == .dictionary else { throw .notAPropertyList }
            try self.init(message: PlistViewValue(view: view, node: view.top))
            return
        }
        guard let value = try? BinaryPropertyListReader(limits: limits).read(bytes), value.isDictionary else {
            throw .notAPropertyList
        }
        try self.init(message: value)
    }

    /// The message a dictionary `d` holds.
    init<Value: MessageValue>(message d: Value) throws(ReadError) {
        let fields = Fields(d: d)
        switch d["kind"]?.stringValue {
        case "hello":
            guard let role = Role(rawValue: try fields.string("role")) else { throw .malformed("role is neither drive nor follow") }
            self = .hello(role: role, peerName: try fields.string("peerName"), rows: try fields.size("rows"), columns: try fields.size("columns"))
        case "text":
            let text = try fields.string("text")
            guard !text.isEmpty, text.unicodeScalars.allSatisfy({ !ShellText.isControl($0) }) else {
                throw .malformed("text is empty or holds a control character")
            }
            self = .input(.text(text, modifiers: try fields.modifiers()))
        case "key":
            guard let key = ShellKey(name: try fields.string("key")) else { throw .malformed("a key of no known name") }
            self = .input(.key(key, modifiers: try fields.modifiers()))
        case "paste":
            self = .input(.paste(try fields.string("text")))
        case "mouse":
            let button = try fields.count("button")
            guard button <= 5 else { throw .malformed("button is not 0 to 5") }
            self = .input(.mouse(
                row: try fields.count("row"), column: try fields.count("column"), button: button,
                pressed: try fields.bool("pressed"), modifiers: try fields.modifiers()))
        case "resize":
            self = .resize(rows: try fields.size("rows"), columns: try fields.size("columns"))
        case "take":
            self = .take
        case "answer":
            self = .answer(allow: try fields.bool("allow"))
        case "shown":
            self = .shown(revision: try fields.count("revision"))
        case "role":
            self = .role(drives: try fields.bool("drives"), driver: try fields.string("driver"))
        case "screen":
            self = .screen(try ShellScreenUpdate(fields))
        case "ask":
            self = .ask(peerName: try fields.string("peerName"))
        case "withdrawn":
            self = .withdrawn
        case "refused":
            self = .refused(reason: try fields.string("reason"))
        case "ended":
            guard let status = d["status"]?.intValue else { throw .malformed("ended without status") }
            self = .ended(status: status)
        case nil:
            throw .malformed("no kind")
        default:
            throw .unknownKind
        }
    }
}

/// A message's keys, read with their types and ranges checked.
struct Fields<Value: MessageValue> {
    let d: Value

    func string(_ key: String) throws(ShellMessage.ReadError) -> String {
        guard let value = d[key]?.stringValue else { throw .malformed("\(key) is not a string") }
        return value
    }

    func bool(_ key: String) throws(ShellMessage.ReadError) -> Bool {
        guard let value = d[key]?.boolValue else { throw .malformed("\(key) is not a boolean") }
        return value
    }

    func count(_ key: String) throws(ShellMessage.ReadError) -> Int {
        guard let value = d[key]?.intValue, value >= 0 else { throw .malformed("\(key) is not a count") }
        return value
    }

    /// A number of rows or columns: 1 to the limit.
    func size(_ key: String) throws(ShellMessage.ReadError) -> Int {
        let value = try count(key)
        let limit = key == "rows" ? ShellScreenUpdate.rowLimit : ShellScreenUpdate.columnLimit
        guard (1...limit).contains(value) else { throw .malformed("\(key) is not 1 to \(limit)") }
        return value
    }

    func modifiers() throws(ShellMessage.ReadError) -> ShellModifiers {
        guard d["mods"] != nil else { return [] }
        let bits = try count("mods")
        guard bits & ~ShellModifiers.all.rawValue == 0 else { throw .malformed("mods has unknown bits") }
        return ShellModifiers(rawValue: bits)
    }
}

/// What a screen may hold.
enum ShellText {
    /// C0 and C1 controls and DEL: never drawn, so never in a cell, a title or typed text.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}

/// A value of a message as read: the strict reader's tree (`PropertyListValue`), or an object
/// of a canonical plist read in place (`PlistViewValue`). The same reading code runs on both.
protocol MessageValue {
    var stringValue: String? { get }
    var intValue: Int? { get }
    var boolValue: Bool? { get }
    /// How many elements, when this is an array; nil otherwise.
    var arrayCount: Int? { get }
    /// Element `index` of an array, below its `arrayCount`.
    subscript(index: Int) -> Self { get }
    var isDictionary: Bool { get }
    /// The value under `key` when this is a dictionary that has it; nil otherwise.
    subscript(key: String) -> Self? { get }
}

extension PropertyListValue: MessageValue {
    var arrayCount: Int? {
        if case .array(let elements) = self { elements.count } else { nil }
    }

    subscript(index: Int) -> PropertyListValue {
        guard case .array(let elements) = self else { preconditionFailure("an element of an array") }
        return elements[index]
    }

    var isDictionary: Bool {
        if case .dictionary = self { true } else { false }
    }
}

/// An object of a canonical plist, read where it lies.
struct PlistViewValue: MessageValue {
    let view: BinaryPropertyListView
    let node: BinaryPropertyListView.Node

    var stringValue: String? { view.string(node) }
    var intValue: Int? { view.int(node) }
    var boolValue: Bool? { view.bool(node) }
    var arrayCount: Int? { view.count(node) }
    subscript(index: Int) -> PlistViewValue { PlistViewValue(view: view, node: view.element(index, of: node)) }
    var isDictionary: Bool { view.kind(node) == .dictionary }

    subscript(key: String) -> PlistViewValue? {
        view.value(forKey: key, in: node).map { PlistViewValue(view: view, node: $0) }
    }
}
