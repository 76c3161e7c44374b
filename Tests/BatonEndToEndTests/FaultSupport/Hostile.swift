import Foundation

/// `scripts/hostile.py`, the hostile sender, run in a lab host.
enum Hostile {
    /// What hostile.py printed when it was done: how many it sent and, by receiving rule, how
    /// many each rule should have dropped (`accepted` for those that pass).
    struct Summary {
        let kind: String
        let sent: Int
        let seconds: Double
        /// By `RejectionReason` raw value, plus `accepted`.
        let expected: [String: Int]
        let senders: Int
    }

    /// The script in this repository.
    static let script = Binaries.repositoryRoot.appendingPathComponent("scripts/hostile.py").path

    /// Why hostile.py cannot run here (no python3, or no `cryptography` module), or nil when it can.
    static let unavailableReason: String? = {
        guard let python = Command.which("python3") else { return "python3 is not installed" }
        guard FileManager.default.isReadableFile(atPath: script) else { return "\(script) is missing" }
        let probe = try? Command.run([python, "-c", "import cryptography, plistlib"], check: false)
        guard probe?.status == 0 else {
            return "python3 lacks the cryptography module (apt-get install -y python3-cryptography)"
        }
        return nil
    }()

    /// Skips the test (saying why) when hostile.py cannot run here.
    static func requireUsable() throws {
        if let reason = unavailableReason { try skip("hostile.py cannot run: \(reason)") }
    }

    /// Starts `hostile.py KIND --count COUNT --rate RATE` in host `host`; `key` nil sends
    /// without `--key` (and without `BATON_KEY`): what a stranger can do. `identity` is the seed
    /// hostile.py signs with: by default the lab's one device (`E2E.identity`, listed: an insider);
    /// nil gives it a new random identity that nobody lists (an outsider, `unknownDevice`).
    ///
    /// With `prepared`, hostile.py seals every datagram first and this returns once it starts
    /// sending: a fast flood then holds its rate while the machine is busy with the receivers.
    /// `extra` are more options (`--victim-name e2e-a`, `--senders 1`, …).
    static func start(
        _ kind: String, count: Int, rate: Double, key: String? = E2E.key, identity: String? = E2E.identity,
        seed: Int? = nil, prepared: Bool = false, extra: [String] = [], lab: Lab, host: Int
    ) throws -> LabProcess {
        var arguments = ["python3", script, kind, "--count", String(count), "--rate", String(rate), "--quiet"]
        if let key { arguments += ["--key", key] }
        if let identity { arguments += ["--identity", identity] }
        if let seed { arguments += ["--seed", String(seed)] }
        if prepared { arguments.append("--prepare") }
        arguments += extra
        let process = try LabProcess("hostile-\(kind)", lab: lab, host: host, arguments, environment: ["BATON_KEY": ""])
        if prepared {
            try Wait.until("hostile.py to seal \(count) \(kind) datagrams", timeout: 60, interval: 0.02) {
                process.snapshot.contains { !$0.isError && $0.text.contains(#""event": "sending""#) }
                    || process.poll() != nil
            }
        }
        return process
    }

    /// Waits for a started hostile.py to finish and returns its summary.
    static func finish(_ process: LabProcess, timeout: Double) throws -> Summary {
        let status = try process.waitForExit(timeout: timeout)
        guard status == 0,
            let text = process.snapshot.last(where: { !$0.isError && $0.text.hasPrefix("{") })?.text,
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        else {
            throw E2EError.commandFailed(command: [script], status: status, output: process.transcript())
        }
        return Summary(
            kind: object["kind"] as? String ?? "",
            sent: (object["sent"] as? NSNumber)?.intValue ?? 0,
            seconds: (object["seconds"] as? NSNumber)?.doubleValue ?? 0,
            expected: (object["expected"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue },
            senders: (object["senders"] as? NSNumber)?.intValue ?? 0)
    }

    /// Runs hostile.py to the end and returns its summary.
    static func run(
        _ kind: String, count: Int, rate: Double, key: String? = E2E.key, identity: String? = E2E.identity,
        seed: Int? = nil, extra: [String] = [], lab: Lab, host: Int
    ) throws -> Summary {
        let process = try start(
            kind, count: count, rate: rate, key: key, identity: identity, seed: seed, extra: extra, lab: lab, host: host)
        defer { process.stop() }
        return try finish(process, timeout: Double(count) / rate * 2 + 20)
    }
}
