import ArgumentParser
import HandoffStore
import HandoffWire

/// A key of a store, as `baton kv` takes it: 1-64 UTF-8 bytes.
package struct StoreKey: ArgumentValue, Hashable, CustomStringConvertible {
    package let text: String

    package init(parsing text: String) throws(ArgumentProblem) {
        if let problem = StoreText.keyProblem(text) { throw ArgumentProblem(problem) }
        self.text = text
    }

    package var description: String { text }
}

/// The name of a store (`--store NAME`): 1-64 UTF-8 bytes, without / or NUL, not starting
/// with a dot, since it names a file.
package struct StoreName: ArgumentValue, Hashable, CustomStringConvertible {
    package let text: String

    package init(parsing text: String) throws(ArgumentProblem) {
        if let problem = StoreText.storeNameProblem(text) { throw ArgumentProblem(problem) }
        self.text = text
    }

    /// The store `baton` uses unless `--store` names another.
    package static let standard = try! StoreName(parsing: StoreText.defaultStore)

    package var description: String { text }
    package var defaultValueDescription: String { text }
}

extension ConflictPolicy: ArgumentValue {
    /// `newest`, `keep-local`, `keep-both` or `resolve`.
    package init(parsing text: String) throws(ArgumentProblem) {
        guard let policy = ConflictPolicy(rawValue: text) else {
            throw ArgumentProblem("'\(PeerText.visible(text))' is not a policy: newest, keep-local, keep-both or resolve.")
        }
        self = policy
    }

    // Argument-parser reads a raw-valued enum by its raw value too; this one says what it was
    // given when it refuses it.
    public init?(argument: String) {
        guard let policy = try? ConflictPolicy(parsing: argument) else { return nil }
        self = policy
    }
}
