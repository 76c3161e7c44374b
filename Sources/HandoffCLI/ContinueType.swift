import Handoff

extension ActivityTypeRegistry {
    /// Refuses at once, before anything touches the network, a `--continue-activity TYPE` or
    /// `continue --type TYPE` that this program could never continue: asking peers for it would
    /// only wait the whole `--wait` and then say nothing was heard. `program` names the program
    /// in the message ("baton", "baton-peer"). No type (any type) always passes.
    public func checkContinuable(_ type: String?, program: String) throws(CommandFailure) {
        guard let type, !isDeclared(type) else { return }
        guard !declaredTypes.isEmpty else {
            throw CommandFailure(
                "\(type) is not an activity type this \(program) declares; its registry declares none. "
                    + "Pass --registry FILE with the type in NSUserActivityTypes.")
        }
        let list = declaredTypes.joined(separator: ", ")
        var message = "\(type) is not an activity type this \(program) declares; the declared types are: \(list)."
        let lastLabel = type.split(separator: ".").last.map { $0.lowercased() }
        if let guess = declaredTypes.first(where: { $0.split(separator: ".").last?.lowercased() == lastLabel }) {
            message += " Did you mean \(guess)?"
        } else {
            message += " To continue another type, pass --registry FILE with it in NSUserActivityTypes."
        }
        throw CommandFailure(message)
    }
}
