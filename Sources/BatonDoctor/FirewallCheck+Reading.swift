import Foundation
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

    /// How long after its output ended a firewall tool may take to exit.
    static let exitReportLimit: TimeInterval = 30

    /// Runs the tool with `posix_spawn` and waits for it with `waitpid`: Foundation's `Process`
    /// reports an exit from a thread of its own, and on a loaded machine that report once came
    /// more than 30 s after the tool's output had ended (doctor then said it could not read the
    /// firewall, in CI).
    private static func run(_ path: String, _ arguments: [String], timeout: TimeInterval) -> (rules: String?, failure: String?) {
        var outputPipe: [Int32] = [0, 0]
        var errorPipe: [Int32] = [0, 0]
        guard pipe(&outputPipe) == 0 else { return (nil, "no pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&errorPipe) == 0 else {
            close(outputPipe[0]); close(outputPipe[1])
            return (nil, "no pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
        for fd in [outputPipe[0], outputPipe[1], errorPipe[0], errorPipe[1]] { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        close(outputPipe[1])
        close(errorPipe[1])
        guard spawned == 0 else {
            close(outputPipe[0]); close(errorPipe[0])
            return (nil, String(cString: strerror(spawned)))
        }
        // Read both while it runs, so that a large ruleset cannot fill a pipe and stall it.
        let collected = Collected()
        let reading = DispatchGroup()
        for (fd, isOutput) in [(outputPipe[0], true), (errorPipe[0], false)] {
            DispatchQueue.global().async(group: reading) {
                let bytes = Self.readAll(fd)
                close(fd)
                collected.lock.withLock { if isOutput { collected.output = bytes } else { collected.errors = bytes } }
            }
        }
        if reading.wait(timeout: .now() + timeout) == .timedOut {
            kill(pid, SIGKILL)
            _ = Self.reap(pid, within: Self.exitReportLimit)
            return (nil, "no answer within \(Int(timeout)) s")
        }
        // Its output ended: it has exited or is about to.
        guard let status = Self.reap(pid, within: Self.exitReportLimit) else {
            kill(pid, SIGKILL)
            return (nil, "it did not exit within \(Int(Self.exitReportLimit)) s of its output's end")
        }
        let (output, errors) = collected.lock.withLock { (collected.output, collected.errors) }
        if status != 0 {
            let message = String(decoding: errors, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "exit status \(status)"
            return (nil, message.contains("ermission") || message.contains("not permitted") ? "needs root: \(message)" : message)
        }
        return (String(decoding: output, as: UTF8.self), nil)
    }

    /// Everything `fd` gives until its end.
    private static func readAll(_ fd: Int32) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 { bytes += buffer.prefix(count); continue }
            if count < 0, errno == EINTR { continue }
            return bytes
        }
    }

    /// `pid`'s exit status (128 + the signal when one ended it), waited for at most `within`
    /// seconds; nil when it has not exited by then.
    private static func reap(_ pid: pid_t, within: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(within)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            if result < 0, errno != EINTR { return 255 }
            if Date() >= deadline { return nil }
            usleep(2_000)
        }
    }

    private final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var output: [UInt8] = []
        var errors: [UInt8] = []
    }
}
