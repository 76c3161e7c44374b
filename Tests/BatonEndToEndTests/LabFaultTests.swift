import Foundation
import Testing

/// Faults and attacks between real programs in network-namespace labs (issue 4): loss on the
/// receiver, killed and restarted peers, a second interface, hostile datagrams, a flood, and
/// escape sequences in what peers send. Each test measures a figure against its target and
/// prints it as a `[figure]` line.
///
/// Needs root, `ip netns`, `nft`, tmux, python3 with `cryptography` (for `scripts/hostile.py`)
/// and the built programs; each test skips, saying why, when something is missing. Each suite
/// runs one test at a time; the suites run beside each other and beside the other lab tests,
/// except the floods (`UnderLoad`), which take turns with each other: two of them at once
/// would measure each other.
@Suite("Faults and attacks (netlab)", .ownThread)
struct LabFaultTests {
    /// The suites that flood a live program with datagrams, one test at a time between them.
    @Suite("Under load: attacks and insiders, one at a time", .serialized)
    struct UnderLoad {}

    /// The environment for one-shot commands run in a lab host with `Command.run`.
    /// Its config folder holds the lab's shared identity, as every program of `E2E.key` does.
    static var commandEnvironment: [String: String] {
        let folder = NSTemporaryDirectory() + "baton-faults-config"
        try? E2E.giveSharedIdentity(config: folder)
        return [
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
            "BATON_KEY": E2E.key, "XDG_CONFIG_HOME": folder, "HOME": folder,
        ]
    }

    /// `baton peer listen --json` in host `host`, as `name`, with `extra` options.
    static func listener(
        _ lab: Lab, host: Int, peer: [String], name: String = "e2e-listener", _ extra: [String] = []
    ) throws -> LabProcess {
        try LabProcess(name, lab: lab, host: host, peer + ["listen", "--json", "--name", name] + extra)
    }

    /// `baton peer announce` of a counter at `count` in host `host`, as `name`; with `every`,
    /// the count goes up by one every `every` seconds (every change a new revision).
    static func announcer(
        _ lab: Lab, host: Int, peer: [String], name: String, count: Int = 0, every: Double? = nil, _ extra: [String] = []
    ) throws -> LabProcess {
        var arguments = peer + [
            "announce", "--name", name, "--type", "dev.baton.counter", "--user-info", "{\"count\":\(count)}",
        ]
        if let every { arguments += ["--tick", "count", "--every", String(every)] }
        return try LabProcess(name, lab: lab, host: host, arguments + extra)
    }

    /// A `published ID revision N {…}` line of `baton peer announce`: the activity and revision.
    static func published(_ line: LabProcess.Line) -> (id: String, revision: Int)? {
        let words = line.text.split(separator: " ", maxSplits: 4)
        guard !line.isError, words.count >= 4, words[0] == "published", words[2] == "revision",
            let revision = Int(words[3])
        else { return nil }
        return (String(words[1]), revision)
    }
}
