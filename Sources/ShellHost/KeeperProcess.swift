internal import CPseudoterminal
#if canImport(Glibc)
import Glibc
#endif

/// The keeper of a shell session as a process of its own, so the program outlives the terminal
/// that started it: this program run again with other arguments, in a new session (no
/// controlling terminal), with /dev/null for its standard files. It says on a pipe, in one line,
/// when the session is offered (`ok ACTIVITY-ID`) or why it could not be (`error MESSAGE`).
public enum KeeperProcess {
    /// The descriptor the keeper writes its line on.
    public static let readyDescriptor: Int32 = 3

    /// Starts this program with `arguments` and waits, at most `timeout`, for its line.
    /// Returns the activity id it offers.
    ///
    /// `executable` is this program unless a test names another.
    public static func start(
        arguments: [String], timeout: Duration, executable: String = "/proc/self/exe"
    ) throws(Pseudoterminal.StartError) -> String {
        // Both ends are moved above the keeper's descriptor and closed on exec: the keeper gets
        // the write end as descriptor 3 and nothing else of the pipe. Had the read end been 3
        // (the lowest free descriptor), putting the write end there would have closed it, and
        // the keeper, holding the write end under its old number, would have said its line on
        // a descriptor that was not the pipe while this side waited for it in vain.
        guard let ends = pipeAboveReady() else { throw .init(description: "no pipe: \(String(cString: strerror(errno)))") }
        defer { close(ends.read) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends.write, readyDescriptor)
        // The keeper outlives this terminal: it keeps no descriptor this process was given.
        posix_spawn_file_actions_addclosefrom_np(&actions, readyDescriptor + 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, baton_posix_spawn_setsid())
        let argv = ([CommandLine.arguments.first ?? "baton"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(ends.write)
        guard result == 0 else { throw .init(description: "the session's keeper did not start: \(String(cString: strerror(result)))") }
        let line: String
        switch readLine(ends.read, timeout: timeout) {
        case .line(let said):
            line = said
        case .timedOut:
            kill(pid, SIGTERM)
            throw .init(description: "the session's keeper did not answer within \(timeout)")
        case .ended:
            // It closed its end without a line: it ended (or crashed) before offering the session.
            throw .init(description: "the session's keeper ended without a word (\(ending(of: pid)))")
        }
        if line.hasPrefix("ok "), line.count > 3 { return String(line.dropFirst(3)) }
        throw .init(description: line.hasPrefix("error ") ? String(line.dropFirst(6)) : "the session's keeper ended without a word")
    }

    /// How `pid` ended, waited for at most a second: "exit status 1", "killed by signal 4".
    private static func ending(of pid: Int32) -> String {
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                return signal == 0 ? "exit status \((status >> 8) & 0xFF)" : "killed by signal \(signal)"
            }
            if result < 0, errno != EINTR { return "its status is unknown" }
            usleep(5_000)
        }
        return "it is still running"
    }

    /// What the keeper said on its pipe: a line, or nothing before its end or the timeout.
    private enum Heard {
        case line(String)
        case ended
        case timedOut
    }

    /// A pipe whose ends are both above `readyDescriptor` and closed on exec.
    private static func pipeAboveReady() -> (read: Int32, write: Int32)? {
        var made: [Int32] = [0, 0]
        guard pipe(&made) == 0 else { return nil }
        let read = fcntl(made[0], F_DUPFD_CLOEXEC, readyDescriptor + 1)
        let write = fcntl(made[1], F_DUPFD_CLOEXEC, readyDescriptor + 1)
        close(made[0])
        close(made[1])
        guard read >= 0, write >= 0 else {
            if read >= 0 { close(read) }
            if write >= 0 { close(write) }
            return nil
        }
        return (read, write)
    }

    /// In the keeper, before it opens anything: the pipe its starter gave it as descriptor 3,
    /// now closed on exec so the program it starts does not hold it; nil when descriptor 3 is
    /// not a pipe (the keeper was started some other way, and has no one to tell).
    public static func readyPipe() -> Int32? {
        var status = stat()
        guard fstat(readyDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFIFO else { return nil }
        _ = fcntl(readyDescriptor, F_SETFD, FD_CLOEXEC)
        return readyDescriptor
    }

    /// In the keeper: says `line` on the pipe `readyPipe()` found, if any, and closes it.
    public static func say(_ line: String, on pipe: Int32?) {
        guard let pipe else { return }
        let bytes = Array((line.split(whereSeparator: \.isNewline).joined(separator: " ") + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(pipe, $0.baseAddress, $0.count) }
        close(pipe)
    }

    /// One line from `fd`: what came before its end or `timeout`, if anything did.
    private static func readLine(_ fd: Int32, timeout: Duration) -> Heard {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&poller, 1, max(1, milliseconds))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            let count = read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? .ended : .line(String(decoding: bytes, as: UTF8.self)) }
            if byte == UInt8(ascii: "\n") { return .line(String(decoding: bytes, as: UTF8.self)) }
            bytes.append(byte)
        }
    }
}
