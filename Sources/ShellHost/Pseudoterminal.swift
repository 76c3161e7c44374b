internal import CPseudoterminal
#if canImport(Glibc)
import Glibc
#endif

/// A program running on a pseudo-terminal of its own: a new session whose controlling terminal
/// is the pty's other end, started with `posix_spawn` (the child runs no Swift code).
public final class Pseudoterminal: Sendable {
    /// The program's process id.
    public let pid: Int32
    /// The pty's master end: what the program writes is read here, and what is written here it
    /// reads as typed.
    public let master: Int32

    /// Why a program could not be started.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `arguments[0]` (looked up in `PATH` when it has no slash) with `arguments`, in
    /// `folder`, with `environment`, on a new pty of `rows` × `columns`.
    public init(arguments: [String], environment: [String: String], folder: String, rows: Int, columns: Int) throws(StartError) {
        guard let program = arguments.first, !program.isEmpty else { throw StartError(description: "no command to run") }
        let master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw StartError(description: "no pseudo-terminal: \(String(cString: strerror(errno)))") }
        var name = [CChar](repeating: 0, count: 128)
        guard grantpt(master) == 0, unlockpt(master) == 0, ptsname_r(master, &name, name.count) == 0 else {
            close(master)
            throw StartError(description: "the pseudo-terminal could not be set up: \(String(cString: strerror(errno)))")
        }
        let slavePath = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Self.setSize(master, rows: rows, columns: columns)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // After setsid (the attribute below), the first terminal the new session opens becomes
        // its controlling terminal: the slave, as standard input, output and error.
        posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        // The program has its terminal and nothing else of ours: not the network's sockets, which
        // it and everything it starts would otherwise hold open after the keeper ended.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        posix_spawn_file_actions_addchdir_np(&actions, folder)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, baton_posix_spawn_setsid() | Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: Int32 = 0
        let result = program.contains("/")
            ? posix_spawn(&pid, program, &actions, &attributes, argv, envp)
            : posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(master)
            throw StartError(description: "\(program): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.master = master
    }

    /// Tells the program its terminal is now `rows` × `columns` (it gets SIGWINCH).
    public func resize(rows: Int, columns: Int) {
        Self.setSize(master, rows: rows, columns: columns)
    }

    private static func setSize(_ fd: Int32, rows: Int, columns: Int) {
        var size = winsize(ws_row: UInt16(clamping: rows), ws_col: UInt16(clamping: columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(fd, UInt(TIOCSWINSZ), &size)
    }

    /// Writes all of `bytes` as typed; false when the program's side is gone.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Blocks until the program writes, then returns what it wrote, with what more is ready at
    /// once (at most 64 KiB: the terminal driver hands over 4 KiB a read, and each chunk costs
    /// the keeper a wake-up); nil once its side is closed (the program and everything it started
    /// ended).
    public func read() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var filled = 0
        while filled < buffer.count {
            if filled > 0 {
                var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 0) > 0, ready.revents & Int16(POLLIN) != 0 else { break }
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress! + filled, $0.count - filled) }
            if count > 0 {
                filled += count
                continue
            }
            if count < 0, errno == EINTR { continue }
            break  // 0, or EIO: the slave side has no process left
        }
        return filled > 0 ? Array(buffer.prefix(filled)) : nil
    }

    /// Waits for the program to end and returns its status as a shell gives it: the exit code,
    /// or 128 + the signal that ended it.
    public func waitForExit() -> Int {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return 255 }
        }
        let signal = status & 0x7F
        return signal == 0 ? Int((status >> 8) & 0xFF) : 128 + Int(signal)
    }

    /// Sends `signal` to the program's whole process group (its session).
    public func signal(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// Closes the master end.
    public func closeMaster() {
        close(master)
    }
}
