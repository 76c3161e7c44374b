/// Why an end-to-end step failed: what was run or awaited, and what was seen instead.
enum E2EError: Error, CustomStringConvertible {
    /// `command` exited with `status`; `output` is what it printed on stdout and stderr.
    case commandFailed(command: [String], status: Int32, output: String)
    /// `program` is not on `PATH` (or not executable at that path).
    case programNotFound(program: String)
    /// Nothing satisfied `condition` within `seconds`; `lastSeen` is the latest observation.
    case timedOut(condition: String, seconds: Double, lastSeen: String)
    /// A file the pane runner writes (pid, exit status, terminal modes) could not be read.
    case missingRunnerFile(path: String)

    var description: String {
        switch self {
        case .commandFailed(let command, let status, let output):
            "`\(command.joined(separator: " "))` exited with \(status): \(output)"
        case .programNotFound(let program):
            "\(program) was not found on PATH or is not executable."
        case .timedOut(let condition, let seconds, let lastSeen):
            "Timed out after \(seconds) s waiting for \(condition). Last seen:\n\(lastSeen)"
        case .missingRunnerFile(let path):
            "The pane runner did not write \(path)."
        }
    }
}
