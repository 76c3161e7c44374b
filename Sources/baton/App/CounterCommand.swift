import ArgumentParser
import BatonApp
import BatonRuntime
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import HandoffCLI

/// `baton` / `baton counter`, and `baton --continue-activity [TYPE]`.
struct CounterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "counter",
        abstract: "Count with + and -, and continue the count in another terminal (the default command).",
        discussion: """
            Keys: + or Up adds one, - or Down takes one away, r resets, n or Ctrl-N lists what \
            peers offer, q quits. With --continue-activity [TYPE], starts from the newest activity a \
            peer offers instead — a counter or an editing session, whichever it is.
            """)

    @OptionGroup var session: SessionOptions
    @OptionGroup var network: NetworkOptions

    @Argument(
        help: ArgumentHelp("With --continue-activity: the activity type to continue, e.g. dev.baton.editing.", valueName: "type"),
        completion: .custom { _, _, prefix in ActivityTypeCompletion.words(prefix: prefix) })
    var activityType: String?

    func validate() throws {
        if let activityType, !session.continueActivity {
            if let advice = Self.commandAdvice(activityType, arguments: Array(CommandLine.arguments.dropFirst())) {
                throw ValidationError(advice)
            }
            throw ValidationError("'\(activityType)' is not a command; to continue an activity of that type, use --continue-activity \(activityType).")
        }
    }

    /// What to say when `word`, taken as the counter's activity type, is a command (options came
    /// before it, so it was read as the counter's argument) or nearly one (a typo): the command
    /// line to run instead, the command first. Nil when `word` is neither.
    static func commandAdvice(_ word: String, arguments: [String]) -> String? {
        let names = Baton.configuration.subcommands.compactMap { $0.configuration.commandName }
        var rest = arguments
        if let index = rest.firstIndex(of: word) { rest.remove(at: index) }
        let line = { (command: String) in (["baton", command] + rest.map(shellWord)).joined(separator: " ") }
        if names.contains(word) {
            return "'\(word)' came after options, which go after the command: \(line(word))"
        }
        let allowed = word.count <= 4 ? 1 : 2
        let near = names.map { (name: $0, distance: editDistance(word, $0)) }
            .filter { $0.distance <= allowed }
            .min { $0.distance < $1.distance }
        guard let near else { return nil }
        return "'\(word)' is not a command; did you mean \(near.name)? \(line(near.name))"
    }

    /// Levenshtein distance between two strings, by characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `argument` as one shell word: as it is when plain, else in single quotes.
    static func shellWord(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil) || "._/:@=+,-%".unicodeScalars.contains($0)
        }
        return plain ? argument : "'" + argument.replacing("'", with: "'\\''") + "'"
    }

    @MainActor
    func run() async throws {
        try await Launch(network: network, options: session.launch).run(
            start: .counter(CounterState(count: 0)), continueType: activityType)
    }
}
