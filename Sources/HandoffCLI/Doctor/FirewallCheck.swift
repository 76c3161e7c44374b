import Foundation

/// `baton doctor`'s firewall check: reads the rules of nftables and iptables when it may, and
/// names any rule that drops or rejects Baton's UDP port or group.
public enum FirewallCheck {
    public static let name = "firewall"

    /// A rule that drops or rejects Baton's traffic, and where it is.
    public struct BlockingRule: Equatable, Sendable {
        /// The rule as the tool printed it, trimmed.
        public var rule: String
        /// nftables: `family table chain`, e.g. `inet filter input`; iptables: the chain, e.g. `INPUT`.
        public var place: String

        public init(rule: String, place: String) {
            self.rule = rule
            self.place = place
        }
    }

    /// What one tool's rules say about Baton's port and group.
    public struct Scan: Equatable, Sendable {
        /// Rules that drop or reject the port or the group.
        public var blocking: [BlockingRule] = []
        /// Input chains whose policy drops what no rule accepts, e.g. `inet filter input`.
        public var dropPolicies: [String] = []
        /// Whether some rule accepts the port, the group or multicast as such.
        public var accepts = false
    }

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
    }

    /// Whether a rule line is about UDP `port` (a port or a range that holds it, after a
    /// `dport`) or names the group (or all of multicast, 224.0.0.0/4).
    static func concerns(_ line: String, port: Int, group: String) -> Bool {
        if line.contains(group) || line.contains("224.0.0.0/4") { return true }
        let lower = line.lowercased()
        guard lower.contains("dport") else { return false }
        if lower.contains("tcp"), !lower.contains("udp"), !lower.contains("th dport") { return false }
        let tokens = lower.split { !($0.isNumber || $0 == "-" || $0 == ":") }
        return tokens.contains { token in
            let bounds = token.split(whereSeparator: { $0 == "-" || $0 == ":" }).compactMap { Int($0) }
            switch bounds.count {
            case 1: return bounds[0] == port && !token.contains("-") && !token.contains(":")
            case 2: return (bounds[0]...max(bounds[0], bounds[1])).contains(port)
            default: return false
            }
        }
    }

    /// Whether a rule line lets multicast as such in.
    static func acceptsMulticast(_ line: String) -> Bool {
        let lower = line.lowercased()
        return lower.contains("pkttype multicast") || lower.contains("type multicast")
            || lower.contains("dst-type multicast")
    }

    /// Reads `nft list ruleset` output.
    public static func scanNftables(_ text: String, port: Int, group: String) -> Scan {
        var scan = Scan()
        var table = ""
        var chain = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ").map(String.init)
            if words.first == "table", words.count >= 3 {
                table = "\(words[1]) \(words[2])"
                continue
            }
            if words.first == "chain", words.count >= 2 {
                chain = words[1]
                continue
            }
            let place = "\(table) \(chain)"
            if line.hasPrefix("type ") {
                if line.contains("hook input"), line.contains("policy drop") { scan.dropPolicies.append(place) }
                continue
            }
            let verdicts = Set(words.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ";")) })
            if verdicts.contains("accept") {
                if concerns(line, port: port, group: group) || acceptsMulticast(line) { scan.accepts = true }
            } else if verdicts.contains("drop") || verdicts.contains("reject") {
                if concerns(line, port: port, group: group) {
                    scan.blocking.append(BlockingRule(rule: line, place: place))
                }
            }
        }
        return scan
    }

    /// Reads `iptables -S` output.
    public static func scanIptables(_ text: String, port: Int, group: String) -> Scan {
        var scan = Scan()
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ").map(String.init)
            guard words.count >= 3 else { continue }
            if words[0] == "-P" {
                if words[1] == "INPUT", words[2] == "DROP" { scan.dropPolicies.append("INPUT") }
                continue
            }
            guard words[0] == "-A", let jump = words.firstIndex(of: "-j"), jump + 1 < words.count else { continue }
            switch words[jump + 1] {
            case "ACCEPT":
                if concerns(line, port: port, group: group) || acceptsMulticast(line) { scan.accepts = true }
            case "DROP", "REJECT":
                if concerns(line, port: port, group: group) {
                    scan.blocking.append(BlockingRule(rule: line, place: words[1]))
                }
            default:
                break
            }
        }
        return scan
    }

    /// The finding from what the tools printed (or why they could not).
    public static func finding(_ readings: [Reading], port: Int, group: String) -> DoctorFinding {
        let read = readings.filter { $0.rules != nil }
        for reading in read {
            let rules = reading.rules ?? ""
            let nft = reading.tool == "nftables"
            let scan = nft ? scanNftables(rules, port: port, group: group) : scanIptables(rules, port: port, group: group)
            if let rule = scan.blocking.first {
                let allow = nft
                    ? "sudo nft insert rule \(rule.place) udp dport \(port) accept"
                    : "sudo iptables -I \(rule.place) -p udp --dport \(port) -j ACCEPT"
                return DoctorFinding(
                    name: name, status: .problem,
                    detail: "\(reading.tool) drops UDP \(port): `\(rule.rule)` (in \(rule.place))",
                    fix: "remove that rule, or allow Baton ahead of it: `\(allow)`")
            }
            if let policy = scan.dropPolicies.first, !scan.accepts {
                let allow = nft
                    ? "sudo nft insert rule \(policy) udp dport \(port) accept"
                    : "sudo iptables -I INPUT -p udp --dport \(port) -j ACCEPT"
                return DoctorFinding(
                    name: name, status: .warning,
                    detail: "\(reading.tool) drops incoming traffic by default (\(policy)) and no rule names UDP \(port)",
                    fix: "allow it: `\(allow)` (or `sudo ufw allow \(port)/udp`)")
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
