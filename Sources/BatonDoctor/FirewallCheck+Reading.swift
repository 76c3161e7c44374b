import Foundation

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

    /// How long after its output ended a firewall tool's exit may take to be reported.
    static let exitReportLimit: TimeInterval = 30

    private static func run(_ path: String, _ arguments: [String], timeout: TimeInterval) -> (rules: String?, failure: String?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        // The exit, as Foundation tells it, waited for with the same bound: `waitUntilExit` has no
        // bound, and on a loaded machine a doctor once waited in it past 60 s, printing nothing.
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
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
        // Done when its output ends (it exited): Foundation's notice of the exit comes through a
        // thread of its own, which a busy machine may run seconds late.
        if collected.finished.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            return (nil, "no answer within \(Int(timeout)) s")
        }
        // Its output ended, so it has exited or is about to; Foundation reports the exit from a
        // thread of its own, which a loaded machine runs late: give that time, within a bound.
        guard exited.wait(timeout: .now() + Self.exitReportLimit) == .success else {
            return (nil, "its exit was not reported within \(Int(Self.exitReportLimit)) s")
        }
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
