import ArgumentParser

/// Why a value on the command line was refused: the sentence argument-parser prints after
/// "The value 'X' is invalid for '--option <name>':", and the exit status is 64.
package struct ArgumentProblem: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}

/// A value argument-parser reads and checks, and that says why it refused one.
///
/// `init?(argument:)` alone would lose the reason, so the commands declare these options with
/// `transform: T.init(parsing:)`, which argument-parser calls the same way and whose error it
/// prints. Such an option shows no default in its help; `ArgumentHelp.defaulting(to:)` adds it as
/// argument-parser would.
package protocol ArgumentValue: ExpressibleByArgument, Sendable {
    init(parsing text: String) throws(ArgumentProblem)
}

extension ArgumentValue {
    package init?(argument: String) {
        guard let value = try? Self(parsing: argument) else { return nil }
        self = value
    }
}

extension ArgumentHelp {
    /// The help of an option read through a transform, with its default shown as
    /// argument-parser shows the default of any other option: ` (default: 2.0)`.
    package func defaulting(to value: some ExpressibleByArgument) -> ArgumentHelp {
        var help = self
        help.abstract += " (default: \(value.defaultValueDescription))"
        return help
    }
}
