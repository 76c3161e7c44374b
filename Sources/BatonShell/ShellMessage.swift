import PropertyList

/// One message of a shell session on a continuation stream (docs/PROTOCOL.md section 20): a
/// binary property list dictionary whose `kind` says which.
public enum ShellMessage: Hashable, Sendable {
    /// What a terminal wants, in its first message: to drive the session or to follow it; its
    /// name (`bob@desk`) and its size.
    public enum Role: String, Hashable, Sendable {
        case drive, follow
    }

    // From a terminal to the keeper.
    case hello(role: Role, peerName: String, rows: Int, columns: Int)
    case input(ShellInput)
    /// The driving terminal's new size.
    case resize(rows: Int, columns: Int)
    /// A terminal that follows asks to drive.
    case take
    /// The driving terminal's answer to `ask`.
    case answer(allow: Bool)
    /// The terminal has shown update `revision`: the keeper may send the next.
    case shown(revision: Int)

    // From the keeper to a terminal.
    /// Whether this terminal drives, and who does (a name, or "" when nobody does).
    case role(drives: Bool, driver: String)
    case screen(ShellScreenUpdate)
    /// Asks the driving terminal's user whether `peerName` may take the session.
    case ask(peerName: String)
    /// The question is withdrawn: the machine that asked left, or the time to answer ran out.
    case withdrawn
    /// The keeper will not let this terminal drive, and says why.
    case refused(reason: String)
    /// The program ended with `status`; the keeper closes the stream next.
    case ended(status: Int)

    /// The largest message read: a full screen of long graphemes, with room to spare.
    public static let maximumBytes = 16 << 20

    /// The message as bytes for the stream: `dictionary` in canonical form (ShellMessage+Writing).
    public var bytes: [UInt8] {
        var builder: BinaryPropertyListBuilder
        if case .screen(let update) = self {
            // The top dictionary's 27 objects, and about 8 a row (most rows are a few runs).
            builder = BinaryPropertyListBuilder(objects: 32 + 8 * update.lines.count)
        } else {
            builder = BinaryPropertyListBuilder(objects: 16)
        }
        write(to: &builder)
        return builder.finish()
    }

    var dictionary: [String: PropertyListValue] {
        switch self {
        case .hello(let role, let name, let rows, let columns):
            return ["kind": "hello", "role": .string(role.rawValue), "peerName": .string(name), "rows": .integer(rows), "columns": .integer(columns)]
        case .input(let input):
            return Self.dictionary(of: input)
        case .resize(let rows, let columns):
            return ["kind": "resize", "rows": .integer(rows), "columns": .integer(columns)]
        case .take:
            return ["kind": "take"]
        case .answer(let allow):
            return ["kind": "answer", "allow": .boolean(allow)]
        case .shown(let revision):
            return ["kind": "shown", "revision": .integer(revision)]
        case .role(let drives, let driver):
            return ["kind": "role", "drives": .boolean(drives), "driver": .string(driver)]
        case .screen(let update):
            return update.dictionary
        case .ask(let name):
            return ["kind": "ask", "peerName": .string(name)]
        case .withdrawn:
            return ["kind": "withdrawn"]
        case .refused(let reason):
            return ["kind": "refused", "reason": .string(reason)]
        case .ended(let status):
            return ["kind": "ended", "status": .integer(status)]
        }
    }

    private static func dictionary(of input: ShellInput) -> [String: PropertyListValue] {
        switch input {
        case .text(let text, let modifiers):
            return ["kind": "text", "text": .string(text), "mods": .integer(modifiers.rawValue)]
        case .key(let key, let modifiers):
            return ["kind": "key", "key": .string(key.name), "mods": .integer(modifiers.rawValue)]
        case .paste(let text):
            return ["kind": "paste", "text": .string(text)]
        case .mouse(let row, let column, let button, let pressed, let modifiers):
            return [
                "kind": "mouse", "row": .integer(row), "column": .integer(column), "button": .integer(button),
                "pressed": .boolean(pressed), "mods": .integer(modifiers.rawValue),
            ]
        }
    }
}
