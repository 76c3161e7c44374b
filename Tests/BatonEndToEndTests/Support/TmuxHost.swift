import Foundation

/// A private tmux server (`tmux -L baton-e2e-UNIQUE`) whose sessions run programs inside lab
/// hosts, each in a terminal of a fixed size, through a small runner script that records the
/// program's pid, its exit status, and the terminal's modes before and after it ran.
/// Always `defer { tmux.shutdown() }` right after making one.
final class TmuxHost {
    /// tmux on this machine, or nil when it is not installed.
    static let tmuxPath: String? = Command.which("tmux")

    /// The server's socket name (`tmux -L NAME`).
    let socketName: String
    /// Scratch folder: the runner, and one folder per session.
    let directory: URL
    private let tmuxPath: String
    private var sessions: [TmuxSession] = []

    /// Makes the scratch folder; skips the test (saying why) when tmux is missing. The server
    /// itself starts with the first session.
    init() throws {
        self.tmuxPath = try TmuxHost.requireTmux()
        let unique = String(UInt64.random(in: 0...UInt64(UInt32.max) << 8), radix: 36)
        socketName = "baton-e2e-\(unique)"
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-e2e-\(unique)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(TmuxHost.runner.utf8).write(to: runnerURL)
    }

    /// tmux's path; skips the test when tmux is missing.
    static func requireTmux() throws -> String {
        guard let tmuxPath else { try skip("tmux is not installed (apt-get install -y tmux)") }
        return tmuxPath
    }

    private var runnerURL: URL { directory.appendingPathComponent("run.sh") }

    /// Starts `command` in a new session called `name`, in a `width`×`height` terminal, inside
    /// network namespace `namespace` (nil: this machine's own, for programs that send nothing).
    ///
    /// The program's environment is only: `PATH`, `HOME` and `XDG_CONFIG_HOME` (in the session's
    /// folder), `TERM=xterm-256color`, `LANG=C.UTF-8`, `BATON_KEY` (`E2E.key`), then `environment`.
    /// With `E2E.key`, the config folder holds the lab's shared identity (`E2E.identity`).
    /// Before the program the pane shows one banner line, `e2e: NAME`. With `workingDirectory`
    /// the program starts there (where the editor saves a name without a path), else in tmux's.
    /// Variables named in `without` are left out (`["BATON_KEY"]`: the program finds its key elsewhere).
    /// Unless `environment` names another, `BATON_LOG` is the session's `baton.log`, which every
    /// baton process the pane starts (a shell's keeper too) appends to, and a timed-out wait shows.
    func start(
        _ name: String, namespace: String?, command: [String], environment: [String: String] = [:],
        without: Set<String> = [], width: Int = 80, height: Int = 24, workingDirectory: String? = nil
    ) throws -> TmuxSession {
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("config"), withIntermediateDirectories: true)
        var variables = [
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": folder.path,
            "XDG_CONFIG_HOME": folder.appendingPathComponent("config").path,
            "TERM": "xterm-256color",
            "LANG": "C.UTF-8",
            "BATON_KEY": E2E.key,
            "BATON_E2E_BANNER": "e2e: \(name)",
            "BATON_LOG": folder.appendingPathComponent("baton.log").path,
        ]
        variables.merge(environment) { _, new in new }
        for name in without { variables[name] = nil }
        // Programs of the lab's group key are the lab's one device (see `E2E.identity`).
        if variables["BATON_KEY"] == E2E.key, let config = variables["XDG_CONFIG_HOME"] {
            try E2E.giveSharedIdentity(config: config)
        }
        var paneCommand = namespace.map { ["ip", "netns", "exec", $0] } ?? []
        paneCommand += ["env", "-i"] + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        paneCommand += ["/bin/sh", runnerURL.path, folder.path] + command
        // remain-on-exit keeps a pane whose runner died, so its screen can still be read.
        try tmux([
            "start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
            "new-session", "-d", "-s", name, "-x", String(width), "-y", String(height),
        ] + (workingDirectory.map { ["-c", $0] } ?? []) + ["--"] + paneCommand)
        E2E.trace("started \(name): \(command.joined(separator: " "))")
        let session = TmuxSession(name: name, program: command[0], directory: folder, host: self)
        sessions.append(session)
        return session
    }

    /// Runs a tmux command against this server.
    @discardableResult
    func tmux(_ arguments: [String], check: Bool = true) throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"  // the client's locale decides whether capture-pane may print UTF-8
        environment["TMUX"] = nil
        return try Command.run(
            [tmuxPath, "-u", "-L", socketName, "-f", "/dev/null"] + arguments, environment: environment, check: check)
    }

    /// Kills the server (its panes get SIGHUP), then SIGKILLs any program of ours still running
    /// (by its recorded pid), and removes the scratch folder. Safe to call again.
    func shutdown() {
        E2E.trace("tmux shutdown")
        defer { E2E.trace("tmux shutdown done") }
        _ = try? tmux(["kill-server"], check: false)
        // tmux leaves its socket behind; remove ours (tmux -L puts it in /tmp/tmux-UID/).
        unlink("/tmp/tmux-\(getuid())/\(socketName)")
        for session in sessions {
            guard let pid = session.recordedPID else { continue }
            let ours = { TmuxHost.isRunning(pid, program: session.program) }
            guard ours() else { continue }
            _ = try? Wait.until("pid \(pid) to end after SIGHUP", timeout: 2) { !ours() }
            if ours() { Foundation.kill(pid, SIGKILL) }
        }
        sessions.removeAll()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether `pid` is still `program` running (not ended, not a zombie waiting to be reaped by
    /// whoever adopted it, and not a reused pid).
    static func isRunning(_ pid: pid_t, program: String) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let commandLine = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        let first = String(decoding: commandLine.prefix { $0 != 0 }, as: UTF8.self)
        return state != "Z" && state != "X" && first == program
    }

    /// Runs in each pane: `run.sh DIR PROGRAM [ARGUMENTS…]`. Writes `DIR/pid` (the program's pid),
    /// `DIR/stty-before`, then after the program `DIR/stty-after` and, last, `DIR/status`; then
    /// keeps the pane as the program left it until the server is killed.
    static let runner = """
        #!/bin/sh
        dir=$1; shift
        stty -a > "$dir/stty-before.part" 2>&1; stty -g >> "$dir/stty-before.part" 2>&1
        mv "$dir/stty-before.part" "$dir/stty-before"
        printf '%s\\n' "$BATON_E2E_BANNER"
        unset BATON_E2E_BANNER
        sh -c 'echo $$ > "$0/pid.part" && mv "$0/pid.part" "$0/pid" && exec "$@"' "$dir" "$@"
        status=$?
        stty -a > "$dir/stty-after.part" 2>&1; stty -g >> "$dir/stty-after.part" 2>&1
        mv "$dir/stty-after.part" "$dir/stty-after"
        echo "$status" > "$dir/status.part" && mv "$dir/status.part" "$dir/status"
        exec sleep 86400

        """
}
