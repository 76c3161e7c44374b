/// What an app test works with: the programs, a lab, a tmux server, and a listener on the last host.
struct Stage {
    /// The built `baton`, and the command of its headless peer: `[baton, "peer"]`.
    let baton: String
    let peer: [String]
    let lab: Lab
    let tmux: TmuxHost
    /// `baton peer listen --json` on the lab's last host.
    let listener: PeerListener

    /// Runs `body` with a lab of `hosts` hosts (the last one listening), and removes everything
    /// after it — programs, tmux server, listener, lab — whether it succeeded or not. Skips
    /// (saying why) when root, `ip netns`, tmux or a built program is missing.
    static func run(hosts: Int, sites: Bool = false, _ body: (Stage) throws -> Void) throws {
        let baton = try Binaries.baton()
        let peer = try Binaries.peer()
        try Lab.requireUsable()
        _ = try TmuxHost.requireTmux()
        let lab = try Lab(hosts: hosts, sites: sites)
        defer { lab.down() }
        let tmux = try TmuxHost()
        defer { tmux.shutdown() }
        let listener = try PeerListener(lab: lab, host: hosts, peer: peer)
        defer { listener.stop() }
        try body(Stage(baton: baton, peer: peer, lab: lab, tmux: tmux, listener: listener))
    }

    /// Starts `baton ARGUMENTS` in a tmux session `name` on lab host `host` (in `workingDirectory`, when given).
    func baton(
        _ name: String, on host: Int, _ arguments: [String], width: Int = 80, height: Int = 24,
        workingDirectory: String? = nil
    ) throws -> TmuxSession {
        try tmux.start(
            name, namespace: lab.namespace(host: host), command: [baton] + arguments, width: width, height: height,
            workingDirectory: workingDirectory)
    }
}
