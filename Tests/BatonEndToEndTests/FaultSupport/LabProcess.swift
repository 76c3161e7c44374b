import Foundation
import Testing

/// A program running in a lab host, outside tmux, whose output lines are kept with the time
/// each one arrived — so that a test can measure how long after its own action (a change, a
/// kill) another program printed something.
///
/// Standard output and standard error are read separately; `endedAt` is when standard output
/// closed (for programs that do not hand it on, when they exited). Always `stop()` it.
final class LabProcess: @unchecked Sendable {
    /// One line of output and when this test process read it.
    struct Line: Sendable {
        let time: Date
        let text: String
        /// From standard error rather than standard output.
        let isError: Bool
    }

    /// A short name for messages.
    let name: String
    private let child: ChildProcess
    private let condition = NSCondition()
    private var lines: [Line] = []
    private var open = 2
    private var outputClosedAt: Date?

    /// Starts `arguments` in host `host` of `lab` with only `PATH`, `LANG`, `HOME`,
    /// `XDG_CONFIG_HOME` (a fresh folder), `BATON_KEY` (`E2E.key`) and `environment` set, less the
    /// variables named in `without` (`["BATON_KEY"]`: the program finds its key elsewhere).
    convenience init(
        _ name: String, lab: Lab, host: Int, _ arguments: [String], environment: [String: String] = [:],
        without: Set<String> = []
    ) throws {
        try self.init(name, namespace: lab.namespace(host: host), arguments, environment: environment, without: without)
    }

    /// Starts `arguments` in network namespace `namespace` (a lab host, or the lab's bridge),
    /// with the environment described above.
    init(
        _ name: String, namespace: String, _ arguments: [String], environment: [String: String] = [:],
        without: Set<String> = []
    ) throws {
        self.name = name
        let home = NSTemporaryDirectory() + "baton-faults-\(name)-\(UInt32.random(in: 0...UInt32.max))"
        var variables = [
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
            "HOME": home, "XDG_CONFIG_HOME": home + "/config", "BATON_KEY": E2E.key,
        ]
        variables.merge(environment) { _, new in new }
        for name in without { variables[name] = nil }
        if variables["BATON_KEY"] == E2E.key, let config = variables["XDG_CONFIG_HOME"] {
            try E2E.giveSharedIdentity(config: config)
        }
        let out = try PipeDescriptors()
        let err: PipeDescriptors
        do {
            err = try PipeDescriptors()
        } catch {
            close(out.read)
            close(out.write)
            throw error
        }
        do {
            child = try ChildProcess(
                ["ip", "netns", "exec", namespace] + arguments, environment: variables, output: out.write, error: err.write)
        } catch {
            for fd in [out.read, out.write, err.read, err.write] { close(fd) }
            throw error
        }
        close(out.write)
        close(err.write)
        E2E.trace("started \(name): \(arguments.joined(separator: " "))")
        for (descriptor, isError) in [(out.read, false), (err.read, true)] {
            Thread { [self] in
                read(descriptor, isError: isError)
                close(descriptor)
            }.start()
        }
    }

    /// The program's process id (`ip netns exec` becomes the program, so it is the program's).
    var pid: pid_t { child.pid }

    private func read(_ descriptor: Int32, isError: Bool) {
        var splitter = LineSplitter()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            let now = Date()
            let complete = splitter.append(buffer[0..<count]).map { Line(time: now, text: $0, isError: isError) }
            guard !complete.isEmpty else { continue }
            condition.lock()
            lines += complete
            condition.broadcast()
            condition.unlock()
        }
        let now = Date()
        condition.lock()
        if let rest = splitter.remainder() { lines.append(Line(time: now, text: rest, isError: isError)) }
        if !isError { outputClosedAt = now }
        open -= 1
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Reading

    /// How many lines arrived so far; pass it as `since` to look only at later ones.
    var mark: Int { condition.withLock { lines.count } }

    /// Every line so far.
    var snapshot: [Line] { condition.withLock { lines } }

    /// When standard output closed (the program ended), or nil while it is open.
    var endedAt: Date? { condition.withLock { outputClosedAt } }

    /// The last `count` lines, for messages.
    func transcript(last count: Int = 15) -> String {
        snapshot.suffix(count).map { ($0.isError ? "[err] " : "") + String($0.text.prefix(400)) }.joined(separator: "\n")
    }

    /// Waits until a line from index `since` on satisfies `matches`; returns its index and the line.
    @discardableResult
    func waitForLine(
        _ description: String, since: Int = 0, timeout: Double = 10, where matches: (Line) -> Bool
    ) throws -> (index: Int, line: Line) {
        let deadline = Date().addingTimeInterval(timeout)
        E2E.trace("\(name): waiting for \(description)")
        var index = since
        condition.lock()
        defer { condition.unlock() }
        while true {
            while index < lines.count {
                let line = lines[index]
                index += 1
                if matches(line) { return (index - 1, line) }
            }
            let ended = open == 0
            if ended || !condition.wait(until: deadline) {
                if index < lines.count { continue }
                let seen = lines.suffix(12).map { String($0.text.prefix(400)) }.joined(separator: "\n")
                throw E2EError.timedOut(
                    condition: "\(name) to print \(description)" + (ended ? " (it ended)" : ""), seconds: timeout,
                    lastSeen: seen)
            }
        }
    }

    /// Waits until a JSON event line (not a statistics line) from `since` on satisfies `matches`.
    @discardableResult
    func waitForEvent(
        _ description: String, since: Int = 0, timeout: Double = 10, where matches: (ListenEvent) -> Bool
    ) throws -> ListenEvent {
        let found = try waitForLine(description, since: since, timeout: timeout) { line in
            ListenEvent(line).map(matches) ?? false
        }
        return ListenEvent(found.line)!
    }

    /// Waits until a statistics line from `since` on satisfies `matches`; returns it.
    @discardableResult
    func waitForCounts(
        _ description: String, since: Int = 0, timeout: Double = 10, where matches: (ReceiveCounts) -> Bool
    ) throws -> ReceiveCounts {
        let found = try waitForLine(description, since: since, timeout: timeout) { line in
            ReceiveCounts(line).map(matches) ?? false
        }
        return ReceiveCounts(found.line)!
    }

    /// The `appeared`, `changed` and `gone` events so far (from `since` on).
    func events(since: Int = 0) -> [ListenEvent] {
        snapshot.dropFirst(since).compactMap(ListenEvent.init)
    }

    /// The events from line `start` up to line `end` (a later `mark`).
    func events(from start: Int, to end: Int) -> [ListenEvent] {
        snapshot.prefix(end).dropFirst(start).compactMap(ListenEvent.init)
    }

    /// The latest statistics line so far, or nil before the first.
    var latestCounts: ReceiveCounts? {
        snapshot.reversed().lazy.compactMap(ReceiveCounts.init).first
    }

    // MARK: - The program

    /// Sends `signal` to the program (unless it was already reaped).
    func signal(_ signal: Int32) {
        child.signal(signal)
    }

    /// The exit status once the program ended (128+N after signal N), else nil.
    func poll() -> Int32? { child.poll() }

    /// Waits for the program to end and its output to close; returns its exit status.
    @discardableResult
    func waitForExit(timeout: Double = 10) throws -> Int32 {
        let status = try Wait.until("\(name) to exit", timeout: timeout, interval: 0.01, lastSeen: { self.transcript() }) {
            child.poll()
        }
        try Wait.until("\(name)'s output to close", timeout: 5, interval: 0.01) { endedAt != nil }
        return status
    }

    /// Waits for the program to end and expects `status`; when it is another, the issue says
    /// which, with the program's last lines of output.
    func expectExit(_ status: Int32, timeout: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ended = try waitForExit(timeout: timeout)
        #expect(ended == status, "\(name) ended with \(ended):\n\(transcript())", sourceLocation: sourceLocation)
    }

    /// SIGTERM, up to 3 s, then SIGKILL; waits for it. Safe to call again.
    func stop() {
        child.stop()
    }
}
