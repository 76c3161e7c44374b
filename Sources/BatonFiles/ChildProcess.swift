internal import CPseudoterminal
import Dispatch
import FoundationEssentials
import Glibc
import NIOConcurrencyHelpers

/// Runs a program to its end with `posix_spawn`, feeds it its standard input, reads its
/// standard output and error while it runs (so that a full pipe cannot stall it), and waits
/// for it with `waitpid`, every step under a deadline. Used by `baton doctor` (the firewall
/// tools) and by the store's resolve command.
///
/// The child runs in a process group of its own: when time runs out the whole group is sent
/// SIGTERM, then SIGKILL a second later, so a shell's children end with it.
package enum ChildProcess {
    /// How a run ended.
    package enum Outcome: Sendable, Equatable {
        /// It exited with `status` (128 + the signal when one ended it).
        case exited(status: Int32, output: [UInt8], errors: [UInt8])
        /// It was still running (or its output still open) after the time allowed; it was ended.
        case tooSlow
        /// It could not be started: why.
        case failedToStart(String)
    }

    /// How long after its output ended a program may take to be reaped.
    package static let exitReportLimit: Duration = .seconds(30)

    /// Runs `path` with `arguments` and `input` on its standard input (nil: /dev/null) for at
    /// most `timeout`, keeping at most `outputLimit` and `errorLimit` bytes of what it writes.
    /// Blocks the calling thread.
    package static func run(
        _ path: String, _ arguments: [String], input: [UInt8]? = nil, timeout: Duration,
        outputLimit: Int = 16 << 20, errorLimit: Int = 64 << 10
    ) -> Outcome {
        var pipes: [[Int32]] = []
        for _ in 0..<3 {
            var ends: [Int32] = [0, 0]
            // Close-on-exec, so that no other child started meanwhile holds an end open.
            guard pipe(&ends) == 0, fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0 else {
                let why = String(cString: strerror(errno))
                pipes.joined().forEach { close($0) }
                return .failedToStart("no pipe: \(why)")
            }
            pipes.append(ends)
        }
        let (stdin, stdout, stderr) = (pipes[0], pipes[1], pipes[2])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if input != nil {
            posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, stdout[1], 1)
        posix_spawn_file_actions_adddup2(&actions, stderr[1], 2)
        // Nothing else of this process's: a command that leaves something running behind it
        // must not keep the network's sockets open (NIO's are not closed on exec).
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        for fd in [stdin[0], stdout[1], stderr[1]] { close(fd) }
        guard spawned == 0 else {
            for fd in [stdin[1], stdout[0], stderr[0]] { close(fd) }
            return .failedToStart(String(cString: strerror(spawned)))
        }
        let collected = Collected()
        let ends = DispatchGroup()
        DispatchQueue.global().async {
            // A program that exits without reading its input must not end this one (SIGPIPE):
            // MSG_NOSIGNAL is for sockets, so the signal is ignored process-wide by the callers.
            if let input { Descriptor.writeAll(stdin[1], input) }
            close(stdin[1])
        }
        for (fd, limit, isOutput) in [(stdout[0], outputLimit, true), (stderr[0], errorLimit, false)] {
            DispatchQueue.global().async(group: ends) {
                let bytes = Descriptor.read(fd, limit: limit) ?? []
                close(fd)
                collected.lock.withLock { if isOutput { collected.output = bytes } else { collected.errors = bytes } }
            }
        }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        if ends.wait(timeout: .now() + seconds) == .timedOut {
            end(pid)
            return .tooSlow
        }
        // Its output ended: it has exited or is about to.
        guard let status = reap(pid, within: exitReportLimit) else {
            end(pid)
            return .tooSlow
        }
        let (output, errors) = collected.lock.withLock { (collected.output, collected.errors) }
        return .exited(status: status, output: output, errors: errors)
    }

    /// Ends `pid`'s process group: SIGTERM, and SIGKILL when it has not exited a second later.
    private static func end(_ pid: pid_t) {
        kill(-pid, SIGTERM)
        if reap(pid, within: .seconds(1)) == nil {
            kill(-pid, SIGKILL)
            _ = reap(pid, within: exitReportLimit)
        }
    }

    /// `pid`'s exit status (128 + the signal when one ended it), waited for at most `within`;
    /// nil when it has not exited by then.
    private static func reap(_ pid: pid_t, within: Duration) -> Int32? {
        let deadline = ContinuousClock.now + within
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            if result < 0, errno != EINTR { return 255 }
            if ContinuousClock.now >= deadline { return nil }
            usleep(2_000)
        }
    }

    private final class Collected: @unchecked Sendable {
        let lock = NIOLock()
        var output: [UInt8] = []
        var errors: [UInt8] = []
    }
}
