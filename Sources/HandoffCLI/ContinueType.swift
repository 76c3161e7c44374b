import Handoff

extension ActivityTypeRegistry {
    /// The activity type a `--continue-activity TYPE` or `continue --type TYPE` asks peers for:
    /// `type` itself when declared; the declared type whose last label it is when it is one
    /// label that ends exactly one declared type (`counter` for `dev.baton.counter`, any case);
    /// nil (any type) for nil.
    ///
    /// Refuses at once, before anything touches the network, a type that this program could
    /// never continue: asking peers for it would only wait the whole `--wait` and then say
    /// nothing was heard. `program` names the program in the message ("baton", "baton peer").
    public func continuableType(_ type: String?, program: String) throws(CommandFailure) -> String? {
        guard let type, !isDeclared(type) else { return type }
        let label = type.lowercased()
        let endingWith = declaredTypes.filter { $0.split(separator: ".").last?.lowercased() == label }
        if !type.contains("."), endingWith.count == 1 { return endingWith[0] }
        guard !declaredTypes.isEmpty else {
            throw CommandFailure(
                "\(type) is not an activity type this \(program) declares; its registry declares none. "
                    + "Pass --registry FILE with the type in NSUserActivityTypes.")
        }
        let list = declaredTypes.joined(separator: ", ")
        var message = "\(type) is not an activity type this \(program) declares; the declared types are: \(list)."
        let lastLabel = type.split(separator: ".").last.map { $0.lowercased() }
        let guesses = declaredTypes.filter { $0.split(separator: ".").last?.lowercased() == lastLabel }
        if !guesses.isEmpty {
            message += " Did you mean \(guesses.joined(separator: " or "))?"
        } else {
            message += " To continue another type, pass --registry FILE with it in NSUserActivityTypes."
        }
        throw CommandFailure(message)
    }

    /// Refuses, as `continuableType` does, a type this program could never continue.
    public func checkContinuable(_ type: String?, program: String) throws(CommandFailure) {
        _ = try continuableType(type, program: program)
    }
}
