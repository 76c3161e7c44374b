import Foundation

/// `baton doctor`'s firewall check: reads the rules of nftables and iptables when it may, and
/// names any rule that drops or rejects Baton's UDP port or group (`FirewallRuleset` reads the rules).
public enum FirewallCheck {
    public static let name = "firewall"

    /// One tool's rules, or why they could not be read.
    public struct Reading: Sendable {
        /// `nftables` or `iptables`.
        public var tool: String
        /// The rules text, or nil.
        public var rules: String?
        /// Why the rules could not be read, when they could not.
        public var failure: String?

        public init(tool: String, rules: String? = nil, failure: String? = nil) {
            self.tool = tool
            self.rules = rules
            self.failure = failure
        }

        /// The rules, chain by chain, when they were read.
        public var ruleset: FirewallRuleset? {
            rules.map { tool == "nftables" ? FirewallRuleset.nftables($0) : FirewallRuleset.iptables($0) }
        }
    }

    /// What doctor saw get through, which outranks any reading of rule text.
    public struct Evidence: Equatable, Sendable {
        /// The self-test's probe came back to the group port through the kernel's input path.
        public var probeReturned: Bool
        /// Datagrams from other machines arrived on the port while doctor listened.
        public var heardOthers: Bool

        public init(probeReturned: Bool = false, heardOthers: Bool = false) {
            self.probeReturned = probeReturned
            self.heardOthers = heardOthers
        }

        public static let none = Evidence()

        /// Whether the datagram port is known to pass.
        public var passes: Bool { probeReturned || heardOthers }

        /// What got through, as a clause: `the self-test's probe came back through the firewall`.
        func saw(port: Int) -> String {
            probeReturned ? "the self-test's probe came back through the firewall" : "datagrams from other machines arrived on UDP \(port)"
        }
    }

    /// The finding from what the tools printed (or why they could not), weighed against what got
    /// through: a reading that `evidence` contradicts is at most a warning, never a problem.
    public static func finding(_ readings: [Reading], port: Int, group: String, evidence: Evidence = .none) -> DoctorFinding {
        let read = readings.filter { $0.rules != nil }
        let datagrams = BatonPort(.udp, port, .datagrams)
        for reading in read {
            guard let ruleset = reading.ruleset else { continue }
            let nft = reading.tool == "nftables"
            switch ruleset.state(of: datagrams, group: group) {
            case .dropped(let rule, let place) where evidence.passes:
                return DoctorFinding(
                    name: name, status: .warning,
                    detail: "\(reading.tool) has `\(rule)` (in \(place)), but \(evidence.saw(port: port)), "
                        + "so that rule does not stop Baton here")
            case .closedByDefault where evidence.passes:
                continue
            case .dropped(let rule, let place):
                let allow = nft
                    ? "sudo nft insert rule \(place) udp dport \(port) accept"
                    : "sudo iptables -I \(place) -p udp --dport \(port) -j ACCEPT"
                return DoctorFinding(
                    name: name, status: .problem,
                    detail: "\(reading.tool) drops UDP \(port): `\(rule)` (in \(place))",
                    fix: "remove that rule, or allow Baton ahead of it: `\(allow)`")
            case .closedByDefault(let place):
                let allow = nft
                    ? "sudo nft insert rule \(place) udp dport \(port) accept"
                    : "sudo iptables -I \(place) -p udp --dport \(port) -j ACCEPT"
                return DoctorFinding(
                    name: name, status: .warning,
                    detail: "\(reading.tool) drops incoming traffic by default (\(place)) and no rule names UDP \(port)",
                    fix: "allow it: `\(allow)` (or `sudo ufw allow \(port)/udp`)")
            case .open:
                continue
            }
        }
        let unread = readings.filter { $0.rules == nil }
        if read.isEmpty {
            let why = unread.compactMap { r in r.failure.map { "\(r.tool): \($0)" } }.joined(separator: "; ")
            return DoctorFinding(
                name: name, status: .skipped,
                detail: "could not read the firewall (\(why.isEmpty ? "no nft or iptables found" : why)); the self-test below still shows whether it lets Baton through",
                fix: "look for a rule on UDP \(port): `sudo nft list ruleset` or `sudo iptables -S`")
        }
        let names = read.map(\.tool).joined(separator: " and ")
        let also = unread.compactMap { r in r.failure.map { "; \(r.tool) could not be read (\($0))" } }.joined()
        return DoctorFinding(name: name, status: .ok, detail: "\(names): no rule drops UDP \(port) or \(group)\(also)")
    }

    /// Runs `nft list ruleset` and `iptables -S` (those installed), each for at most `timeout` seconds.
    public static func read(timeout: TimeInterval = 1) -> [Reading] {
        var readings: [Reading] = []
        for (tool, program, arguments) in [("nftables", "nft", ["list", "ruleset"]), ("iptables", "iptables", ["-S"])] {
            guard let path = find(program) else { continue }
            let result = run(path, arguments, timeout: timeout)
            readings.append(Reading(tool: tool, rules: result.rules, failure: result.failure))
        }
        if readings.isEmpty { readings.append(Reading(tool: "nftables", failure: "neither nft nor iptables is installed")) }
        return readings
    }

    private static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return folders.map { $0 + "/" + program }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func run(_ path: String, _ arguments: [String], timeout: TimeInterval) -> (rules: String?, failure: String?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do {
            try process.run()
        } catch {
            return (nil, "\(error.localizedDescription)")
        }
        // Read while it runs, so that a large ruleset cannot fill the pipe and stall it.
        let collected = Collected()
        let reader = Thread {
            collected.output = output.fileHandleForReading.readDataToEndOfFile()
            collected.errors = errors.fileHandleForReading.readDataToEndOfFile()
            collected.finished.signal()
        }
        reader.start()
        if done.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            return (nil, "no answer within \(Int(timeout)) s")
        }
        collected.finished.wait()
        let text = String(decoding: collected.output, as: UTF8.self)
        if process.terminationStatus != 0 {
            let message = String(decoding: collected.errors, as: UTF8.self)
                .split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
            return (nil, message.contains("ermission") || message.contains("not permitted")
                ? "needs root: \(message)" : message)
        }
        return (text, nil)
    }

    private final class Collected: @unchecked Sendable {
        var output = Data()
        var errors = Data()
        let finished = DispatchSemaphore(value: 0)
    }
}
