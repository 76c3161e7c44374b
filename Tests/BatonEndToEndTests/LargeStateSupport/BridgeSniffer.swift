import Foundation

/// Every UDP datagram and IP fragment the lab's hosts put on the bridge, tallied by
/// `python3 -m batonlab.wire capture` (bench/batonlab/wire.py) on a packet socket in the bridge
/// namespace: the largest UDP payload, how many frames were fragments, per Baton message kind.
/// It sees what any program sends, so it checks issue 8's rule from outside: no datagram over
/// one frame (1,472 bytes of UDP payload), none fragmented. Always `stop()` it.
final class BridgeSniffer {
    /// The capture's last line, `{"event": "summary", …}`.
    struct Summary: CustomStringConvertible {
        let fields: [String: Any]

        private func int(_ key: String) -> Int { (fields[key] as? NSNumber)?.intValue ?? 0 }
        /// UDP datagrams put on the bridge (a fragmented one counted once, at its first fragment).
        var datagrams: Int { int("datagrams") }
        /// The largest UDP payload among them, in bytes.
        var largestPayload: Int { int("largestPayload") }
        /// Frames that were IP fragments (first or later).
        var fragments: Int { int("fragments") }
        /// Datagrams over 1,472 bytes of payload (more than one 1,500-byte frame).
        var overOneFrame: Int { int("overOneFrame") }
        /// Datagrams over Baton's own 1,200-byte limit.
        var overBatonLimit: Int { int("overBatonLimit") }
        /// Frames the capture socket itself dropped (then the tally is incomplete).
        var socketDrops: Int { int("socketDrops") }
        /// Baton datagrams by kind (1 ANNOUNCE … 5 OFFER).
        func count(kind: Int) -> Int { ((fields["byKind"] as? [String: Any])?[String(kind)] as? NSNumber)?.intValue ?? 0 }
        /// Baton datagrams of `kind` that host `host` put on the bridge (through its port `pN`).
        func count(host: Int, kind: Int) -> Int {
            let ports = fields["byPortKind"] as? [String: Any]
            return ((ports?["p\(host)"] as? [String: Any])?[String(kind)] as? NSNumber)?.intValue ?? 0
        }
        /// Where the largest datagram came from and went, for messages.
        var largest: String { "\(fields["largest"] ?? [:])" }

        var description: String {
            "\(datagrams) datagrams, largest UDP payload \(largestPayload) bytes (\(largest)), \(fragments) IP fragments, "
                + "\(overOneFrame) over 1,472 bytes, \(overBatonLimit) over 1,200, ANNOUNCE \(count(kind: 1)), OFFER \(count(kind: 5)), "
                + "capture socket dropped \(socketDrops)"
        }
    }

    /// bench/, where the `batonlab` package is.
    static let benchFolder = Binaries.repositoryRoot.appendingPathComponent("bench").path

    /// Why the capture cannot run here, or nil when it can.
    static let unavailableReason: String? = {
        guard Command.which("python3") != nil else { return "python3 is not installed" }
        let module = benchFolder + "/batonlab/wire.py"
        guard FileManager.default.fileExists(atPath: module) else { return "\(module) is missing" }
        return nil
    }()

    /// Skips the test (saying why) when the capture cannot run here.
    static func requireUsable() throws {
        if let reason = unavailableReason { try skip("bridge sniffer and UDP probe unavailable: \(reason)") }
    }

    private let process: LabProcess

    /// Starts the capture in `lab`'s bridge namespace and waits until its socket is open; skips
    /// the test (saying why) when python3 is missing.
    init(lab: Lab) throws {
        try Self.requireUsable()
        process = try LabProcess(
            "sniffer", namespace: lab.bridgeNamespace, ["python3", "-B", "-m", "batonlab.wire", "capture"],
            environment: ["PYTHONPATH": Self.benchFolder])
        do {
            try process.waitForLine("the capture to be ready") { !$0.isError && $0.text == "ready" }
        } catch {
            process.stop()
            throw error
        }
    }

    /// Ends the capture (SIGTERM) and returns its tally.
    func finish() throws -> Summary {
        process.signal(SIGTERM)
        _ = try process.waitForExit(timeout: 10)
        let lines = process.snapshot.filter { !$0.isError && $0.text.contains("\"summary\"") }
        guard let line = lines.last,
            let object = try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any]
        else {
            throw E2EError.timedOut(condition: "the sniffer's summary", seconds: 10, lastSeen: process.transcript())
        }
        return Summary(fields: object)
    }

    /// Stops the capture if it still runs. Safe to call again.
    func stop() { process.stop() }
}

/// UDP datagrams of chosen sizes sent from one lab host to another (`python3 -m batonlab.wire
/// probe-send` / `probe-recv`): how many of each size arrived, to show what a loss rule drops.
enum WireProbe {
    /// Sends `count` datagrams of each of `sizes` (interleaved, `gapMilliseconds` apart) from
    /// host `from` to host `to` on UDP `port`; returns how many of each size arrived.
    static func deliveries(
        lab: Lab, from: Int, to: Int, sizes: [Int], count: Int, gapMilliseconds: Double = 2, port: Int = 47999
    ) throws -> [Int: Int] {
        try BridgeSniffer.requireUsable()
        let environment = ["PYTHONPATH": BridgeSniffer.benchFolder]
        // The receiver keeps the fragments of datagrams that lost one for 30 s; with a lot of
        // them the kernel's 4 MB reassembly budget would drop whole datagrams besides the rule.
        try Command.run(lab.command(host: to, ["sysctl", "-qw", "net.ipv4.ipfrag_high_thresh=268435456"]))
        let receiver = try LabProcess(
            "probe-recv", lab: lab, host: to,
            ["python3", "-B", "-m", "batonlab.wire", "probe-recv", "--port", String(port), "--seconds", "120"],
            environment: environment)
        defer { receiver.stop() }
        try receiver.waitForLine("the probe receiver to be ready") { !$0.isError && $0.text == "ready" }
        try Command.run(
            lab.command(host: from, [
                "python3", "-B", "-m", "batonlab.wire", "probe-send", "--to", lab.address(host: to), "--port", String(port),
                "--sizes", sizes.map(String.init).joined(separator: ","), "--count", String(count),
                "--gap-ms", String(gapMilliseconds),
            ]), environment: ProcessInfo.processInfo.environment.merging(environment) { _, new in new })
        let line = try receiver.waitForLine("the probe's tally", timeout: 30) {
            !$0.isError && $0.text.contains("\"probe\"")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.line.text.utf8)) as? [String: Any],
            let received = object["received"] as? [String: Any]
        else { throw E2EError.commandFailed(command: ["probe-recv"], status: 0, output: line.line.text) }
        var counts: [Int: Int] = [:]
        for size in sizes { counts[size] = (received[String(size)] as? NSNumber)?.intValue ?? 0 }
        return counts
    }
}
