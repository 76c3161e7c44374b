import Foundation
import Testing

/// One program running in a tmux pane of a `TmuxHost`: type into it, read its screen and
/// cursor, signal it, and after it ends read how it left the terminal.
final class TmuxSession {
    /// The session's name (also the banner `e2e: NAME` the pane shows before the program).
    let name: String
    /// The program it runs (the first word of its command).
    let program: String
    /// The runner's files for this session: `pid`, `status`, `stty-before`, `stty-after`.
    let directory: URL
    private unowned let host: TmuxHost

    init(name: String, program: String, directory: URL, host: TmuxHost) {
        self.name = name
        self.program = program
        self.directory = directory
        self.host = host
    }

    /// The pane, matched exactly by session name.
    private var target: String { "=\(name):" }

    // MARK: - Input

    /// Types `text` literally (UTF-8, no key names), as one write to the terminal.
    func type(_ text: String) throws {
        try host.tmux(["send-keys", "-t", target, "-l", "--", text])
    }

    /// Presses keys by tmux name: `Enter`, `Left`, `Up`, `C-s`, `Escape`, or a single character.
    func press(_ keys: String...) throws {
        try host.tmux(["send-keys", "-t", target, "--"] + keys)
    }

    // MARK: - Output

    /// The visible screen, one string per row (`capture-pane -p`: trailing spaces dropped).
    func capture() throws -> [String] {
        var lines = try host.tmux(["capture-pane", "-p", "-t", target]).output.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The visible screen with its colours and attributes, as tmux writes them (`capture-pane -p -e`).
    func captureStyled() throws -> [String] {
        var lines = try host.tmux(["capture-pane", "-p", "-e", "-t", target]).output.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Sets the pane's size, as a terminal window resized by its user.
    func resize(width: Int, height: Int) throws {
        try host.tmux(["resize-window", "-t", target, "-x", String(width), "-y", String(height)])
    }

    /// The screen as one text for messages, rows numbered.
    func screenDump() -> String {
        guard let lines = try? capture() else { return "(no screen: the session is gone)" }
        let state = (try? query("cursor=#{cursor_x},#{cursor_y} alternate=#{alternate_on} dead=#{pane_dead}")) ?? ""
        return lines.enumerated().map { String(format: "%2d|", $0.offset) + $0.element }.joined(separator: "\n")
            + "\n(\(state))" + logTail()
    }

    /// The last lines of the session's `baton.log` (see `TmuxHost.start`), when it has any.
    func logTail(lines count: Int = 40) -> String {
        guard let text = try? String(contentsOf: directory.appendingPathComponent("baton.log"), encoding: .utf8),
            !text.isEmpty
        else { return "" }
        return "\nbaton.log, last lines:\n" + text.split(separator: "\n").suffix(count).joined(separator: "\n")
    }

    /// Expands a tmux format for the pane, e.g. `#{cursor_x}`.
    func query(_ format: String) throws -> String {
        try host.tmux(["display-message", "-p", "-t", target, format]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Where the terminal's cursor is: 0-based column and row.
    func cursor() throws -> (x: Int, y: Int) {
        let parts = try query("#{cursor_x},#{cursor_y}").split(separator: ",").compactMap { Int($0) }
        guard parts.count == 2 else { throw E2EError.commandFailed(command: ["cursor"], status: 0, output: "\(parts)") }
        return (parts[0], parts[1])
    }

    /// Waits until the terminal's cursor is at column `x` of row `y` (0-based).
    func waitForCursor(x: Int, y: Int, _ description: String, timeout: Double = 10) throws {
        try Wait.until("\(name)'s cursor at (\(x), \(y)): \(description)", timeout: timeout, interval: 0.02, lastSeen: screenDump) {
            let at = try cursor()
            return at.x == x && at.y == y
        }
    }

    /// Whether the pane shows the alternate screen (a full-screen program is drawing).
    func isOnAlternateScreen() throws -> Bool { try query("#{alternate_on}") == "1" }

    /// Waits until some row contains `text`; returns the screen.
    @discardableResult
    func waitForScreen(containing text: String, timeout: Double = 10) throws -> [String] {
        try waitForScreen("\(name)'s screen to contain \"\(text)\"", timeout: timeout) { lines in
            lines.contains { $0.contains(text) }
        }
    }

    /// Waits until `condition` holds for the screen; returns that screen.
    @discardableResult
    func waitForScreen(
        _ description: String, timeout: Double = 10, where condition: ([String]) -> Bool
    ) throws -> [String] {
        try Wait.until(description, timeout: timeout, interval: 0.02, lastSeen: screenDump) {
            let lines = try capture()
            return condition(lines) ? lines : nil
        }
    }

    // MARK: - The program

    /// The program's pid once the runner recorded it.
    var recordedPID: pid_t? {
        (try? String(contentsOf: directory.appendingPathComponent("pid"), encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// The program's pid (waits until the runner recorded it).
    func pid(timeout: Double = 10) throws -> pid_t {
        try Wait.until("\(name)'s program to start", timeout: timeout, lastSeen: screenDump) { recordedPID }
    }

    /// Sends `signal` to the program.
    func kill(_ signal: Int32 = SIGTERM) throws {
        let pid = try pid()
        guard Foundation.kill(pid, signal) == 0 else {
            throw E2EError.commandFailed(command: ["kill", "-\(signal)", "\(pid)"], status: errno, output: "")
        }
    }

    /// The program's exit status once it ended (as `sh` reports it: 128+N after signal N), else nil.
    var exitStatus: Int32? {
        (try? String(contentsOf: directory.appendingPathComponent("status"), encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Waits for the program to end; returns its exit status.
    @discardableResult
    func waitForExit(timeout: Double = 10) throws -> Int32 {
        try Wait.until("\(name)'s program to exit", timeout: timeout, lastSeen: screenDump) { exitStatus }
    }

    /// Waits for the program to end and expects `status`; when it is another, the issue says
    /// which, with the screen and the log's last lines (a crash's signal is one of them).
    func expectExit(_ status: Int32, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ended = try waitForExit(timeout: timeout)
        #expect(ended == status, "\(name) ended with \(ended):\n\(screenDump())", sourceLocation: sourceLocation)
    }

    /// The terminal's modes just before the program started.
    func modesBefore() throws -> TerminalModes { try modes("stty-before") }

    /// The terminal's modes right after the program ended (call after `waitForExit`).
    func modesAfter() throws -> TerminalModes { try modes("stty-after") }

    /// `stty -g` before the program ran and after it ended: equal when it restored every mode.
    func settings() throws -> (before: String, after: String) {
        (try lastLine("stty-before"), try lastLine("stty-after"))
    }

    private func modes(_ file: String) throws -> TerminalModes {
        TerminalModes(sttyAll: try read(file))
    }

    private func lastLine(_ file: String) throws -> String {
        try read(file).split(separator: "\n").last.map(String.init) ?? ""
    }

    private func read(_ file: String) throws -> String {
        let url = directory.appendingPathComponent(file)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw E2EError.missingRunnerFile(path: url.path)
        }
        return text
    }
}
