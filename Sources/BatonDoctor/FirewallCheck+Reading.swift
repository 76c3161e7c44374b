import BatonFiles
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Reading the rules: running the firewall tools this machine has.
extension FirewallCheck {
    /// Runs `nft list ruleset` and `iptables -S` (those installed), each for at most `timeout`
    /// seconds: they answer in milliseconds, but a machine busy compiling took over a second.
    package static func read(timeout: TimeInterval = 5) -> [Reading] {
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

    /// Runs the tool (`ChildProcess`: posix_spawn and waitpid; Foundation's `Process` reported
    /// an exit from a thread of its own, once more than 30 s after the tool's output had ended,
    /// and doctor then said it could not read the firewall, in CI).
    private static func run(_ path: String, _ arguments: [String], timeout: TimeInterval) -> (rules: String?, failure: String?) {
        switch ChildProcess.run(path, arguments, timeout: .milliseconds(Int64(timeout * 1000))) {
        case .failedToStart(let why):
            return (nil, why)
        case .tooSlow:
            return (nil, "no answer within \(Int(timeout)) s")
        case .exited(let status, let output, let errors):
            if status != 0 {
                let message = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "exit status \(status)"
                return (nil, message.contains("ermission") || message.contains("not permitted") ? "needs root: \(message)" : message)
            }
            return (String(decoding: output, as: UTF8.self), nil)
        }
    }
}
