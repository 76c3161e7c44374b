import Testing

/// The counter handoffs the lab tests repeat: a counter counted up, continued elsewhere, and the
/// source told.
extension Stage {
    /// `baton counter --name NAME` in tmux session `session` on lab host `host` (with `extra`),
    /// with `+` pressed until it shows `count`.
    func counter(
        _ session: String, on host: Int, name: String, count: Int, _ extra: [String] = [], width: Int = 120
    ) throws -> TmuxSession {
        let counter = try baton(session, on: host, ["counter", "--name", name] + extra, width: width)
        try counter.waitForScreen("\(session)'s counter at 0") { EndToEndTests.screen($0, showsCount: 0) }
        try counter.type(String(repeating: "+", count: count))
        try counter.waitForScreen("\(session)'s counter at \(count)") { EndToEndTests.screen($0, showsCount: count) }
        return counter
    }

    /// `baton --continue-activity dev.baton.counter --from SOURCE` as `name` on lab host `host`
    /// (with `extra`): it shows `count`, and `source` says it was continued there.
    func continueCounter(
        _ session: String, on host: Int, name: String, from source: (session: TmuxSession, name: String), count: Int,
        _ extra: [String] = [], width: Int = 120
    ) throws -> TmuxSession {
        let continued = try baton(session, on: host, [
            "--continue-activity", "dev.baton.counter", "--from", source.name, "--wait", "5", "--name", name,
        ] + extra, width: width)
        try continued.waitForScreen("\(session)'s counter at \(count)") { EndToEndTests.screen($0, showsCount: count) }
        try source.session.waitForScreen(containing: "Continued on \(name)")
        return continued
    }

    /// Types `q` in each session and expects each to exit with status 0.
    func quit(_ sessions: TmuxSession...) throws {
        for session in sessions { try session.type("q") }
        for session in sessions { try session.expectExit(0) }
    }
}
