import ArgumentParser
import FoundationEssentials

/// A number of seconds given on the command line (`--wait 1.5`), held as a `Duration`.
///
/// Read as argument-parser reads a `Double` (`2`, `0.25`, `1e1`), then checked once, here:
/// finite and not negative. What an option allows beyond that (`--wait` at most 600 s,
/// `--duration` above 0) is one of its readers: `wait(_:)`, `answerWait(_:)`, `listen(_:)`,
/// `running(_:)`.
package struct Seconds: ArgumentValue, Hashable, Comparable, CustomStringConvertible {
    package let duration: Duration
    /// The seconds as given, for the sentences that repeat them and for `TimeInterval` APIs.
    package let value: Double

    /// `seconds`, which must be finite and not negative.
    package init(_ seconds: Double) {
        precondition(seconds.isFinite && seconds >= 0, "seconds are finite and not negative")
        duration = .seconds(seconds)
        value = seconds
    }

    /// Any finite number of seconds, 0 or more.
    package init(parsing text: String) throws(ArgumentProblem) {
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
            throw ArgumentProblem("a number of seconds is a number, 0 or more.")
        }
        self.init(seconds)
    }

    package var isZero: Bool { value == 0 }

    package var timeInterval: TimeInterval { value }

    /// `1 s`, `0.5 s`: as a sentence says them.
    package var description: String {
        (value == value.rounded() ? String(Int(value)) : String(value)) + " s"
    }

    /// As argument-parser shows a `Double` default: `2.0`.
    package var defaultValueDescription: String { String(value) }

    package static func < (a: Seconds, b: Seconds) -> Bool { a.value < b.value }

    /// The longest `--wait`.
    package static let longestWait = Seconds(600)

    /// `--wait`: 0 to 600 seconds.
    package static func wait(_ text: String) throws(ArgumentProblem) -> Seconds {
        guard let seconds = try? Seconds(parsing: text), seconds <= longestWait else {
            throw ArgumentProblem("--wait must be between 0 and 600 seconds.")
        }
        return seconds
    }

    /// `--wait` with `--continue-activity`: above 0, at most 600 seconds.
    package static func answerWait(_ text: String) throws(ArgumentProblem) -> Seconds {
        guard let seconds = try? wait(text), !seconds.isZero else {
            throw ArgumentProblem("--wait must be between 0 and 600 seconds.")
        }
        return seconds
    }

    /// `baton doctor --listen`: 0 to 600 seconds.
    package static func listen(_ text: String) throws(ArgumentProblem) -> Seconds {
        guard let seconds = try? Seconds(parsing: text), seconds <= longestWait else {
            throw ArgumentProblem("--listen takes 0-600 seconds.")
        }
        return seconds
    }

    /// `--duration`: how long a command runs, above 0 seconds.
    package static func running(_ text: String) throws(ArgumentProblem) -> Seconds {
        guard let seconds = try? Seconds(parsing: text), !seconds.isZero else {
            throw ArgumentProblem("--duration must be a number of seconds above 0.")
        }
        return seconds
    }
}
