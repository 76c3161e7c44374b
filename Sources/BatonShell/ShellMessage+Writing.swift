import PropertyList

/// Each message written straight into a property-list builder, its keys in the order of their
/// bytes: the same bytes as its `dictionary` written whole, without building the dictionary (a
/// screen's took as many instructions as the rest of a key's way through the keeper).
extension ShellMessage {
    func write(to builder: inout BinaryPropertyListBuilder) {
        switch self {
        case .hello(let role, let name, let rows, let columns):
            builder.beginDictionary(keys: ["columns", "kind", "peerName", "role", "rows"])
            builder.add(columns)
            builder.add(literal: "hello")
            builder.add(name)
            builder.add(role.rawValue)
            builder.add(rows)
        case .input(let input):
            Self.write(input, to: &builder)
        case .resize(let rows, let columns):
            builder.beginDictionary(keys: ["columns", "kind", "rows"])
            builder.add(columns)
            builder.add(literal: "resize")
            builder.add(rows)
        case .take:
            builder.beginDictionary(keys: ["kind"])
            builder.add(literal: "take")
        case .answer(let allow):
            builder.beginDictionary(keys: ["allow", "kind"])
            builder.add(allow)
            builder.add(literal: "answer")
        case .shown(let revision):
            builder.beginDictionary(keys: ["kind", "revision"])
            builder.add(literal: "shown")
            builder.add(revision)
        case .role(let drives, let driver):
            builder.beginDictionary(keys: ["driver", "drives", "kind"])
            builder.add(driver)
            builder.add(drives)
            builder.add(literal: "role")
        case .screen(let update):
            // The update ends its own dictionary.
            return update.write(to: &builder)
        case .ask(let name):
            builder.beginDictionary(keys: ["kind", "peerName"])
            builder.add(literal: "ask")
            builder.add(name)
        case .withdrawn:
            builder.beginDictionary(keys: ["kind"])
            builder.add(literal: "withdrawn")
        case .refused(let reason):
            builder.beginDictionary(keys: ["kind", "reason"])
            builder.add(literal: "refused")
            builder.add(reason)
        case .ended(let status):
            builder.beginDictionary(keys: ["kind", "status"])
            builder.add(literal: "ended")
            builder.add(status)
        }
        builder.end()
    }

    private static func write(_ input: ShellInput, to builder: inout BinaryPropertyListBuilder) {
        switch input {
        case .text(let text, let modifiers):
            builder.beginDictionary(keys: ["kind", "mods", "text"])
            builder.add(literal: "text")
            builder.add(modifiers.rawValue)
            builder.add(text)
        case .key(let key, let modifiers):
            builder.beginDictionary(keys: ["key", "kind", "mods"])
            builder.add(key.name)
            builder.add(literal: "key")
            builder.add(modifiers.rawValue)
        case .paste(let text):
            builder.beginDictionary(keys: ["kind", "text"])
            builder.add(literal: "paste")
            builder.add(text)
        case .mouse(let row, let column, let button, let pressed, let modifiers):
            builder.beginDictionary(keys: ["button", "column", "kind", "mods", "pressed", "row"])
            builder.add(button)
            builder.add(column)
            builder.add(literal: "mouse")
            builder.add(modifiers.rawValue)
            builder.add(pressed)
            builder.add(row)
        }
    }
}
