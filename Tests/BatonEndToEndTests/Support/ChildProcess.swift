import Foundation

/// A program started with `posix_spawn`: no signal blocked and every signal at its default,
/// whatever the spawning thread had (test threads block most signals, and a tmux server that
/// inherits that mask never reaps its panes); only descriptors 0, 1 and 2 open (a tmux server
/// lives on and would otherwise keep other tests' pipes open); reaped with `waitpid` by
/// whoever waits for it (not by Foundation's `Process`, whose wait can miss the exit).
final class ChildProcess: @unchecked Sendable {
    /// The program's process id.
    let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `arguments` (the first is the program, found on `PATH` when not a path) with
    /// `environment` (nil: this process's), standard input from `input`, standard output to
    /// `output` and standard error to `error` (descriptors of this process; -1: `/dev/null`).
    init(_ arguments: [String], environment: [String: String]? = nil, input: Int32 = -1, output: Int32 = -1, error: Int32 = -1)
        throws
    {
        let program = try Command.resolve(arguments[0])
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(input, 0), (output, 1), (error, 2)] {
            posix_spawn_file_actions_adddup2(&actions, source >= 0 ? source : null, Int32(target))
        }
        if let closeFrom = LibC.addCloseFrom {
            _ = closeFrom(&actions, 3)
        } else {
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for fd in open.compactMap({ Int32($0) }) where fd > 2 {
                posix_spawn_file_actions_addclose(&actions, fd)  // one closed meanwhile is no error
            }
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, &argv, &envp)
        guard result == 0 else {
            throw E2EError.commandFailed(command: arguments, status: result, output: "posix_spawn: \(String(describing: strerror(result).map { String(cString: $0) }))")
        }
        self.pid = pid
    }

    /// The exit status once the program ended (128+N after signal N, as a shell says), else nil.
    func poll() -> Int32? {
        reap(options: WNOHANG)
    }

    /// Waits for the program to end; returns its exit status (128+N after signal N).
    @discardableResult
    func wait() -> Int32 {
        reap(options: 0) ?? -1
    }

    /// Sends `signal` unless the program was already reaped.
    func signal(_ signal: Int32) {
        lock.withLock {
            if status == nil { _ = kill(pid, signal) }
        }
    }

    /// SIGTERM, up to `grace` seconds to end, then SIGKILL; waits for it. Safe to call again.
    func stop(grace: Double = 3) {
        signal(SIGTERM)
        if (try? Wait.until("pid \(pid) to end", timeout: grace) { poll() != nil }) == nil {
            signal(SIGKILL)
        }
        wait()
    }

    private func reap(options: Int32) -> Int32? {
        if let status = lock.withLock({ status }) { return status }
        var raw: Int32 = 0
        var result: pid_t
        repeat {
            result = waitpid(pid, &raw, options)
        } while result < 0 && errno == EINTR
        guard result == pid else { return lock.withLock { status } }
        let signal = raw & 0x7F
        let code = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
        lock.withLock { status = code }
        return code
    }
}

/// A pipe whose two descriptors close on exec (a child gets one only through `dup2`).
struct PipeDescriptors {
    let read: Int32
    let write: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        if let pipe2 = LibC.pipe2 {
            guard pipe2(&fds, O_CLOEXEC) == 0 else {
                throw E2EError.commandFailed(command: ["pipe2"], status: errno, output: "")
            }
        } else {
            guard pipe(&fds) == 0 else { throw E2EError.commandFailed(command: ["pipe"], status: errno, output: "") }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        read = fds[0]
        write = fds[1]
    }
}

/// C library functions Swift's Glibc module leaves out (they need `_GNU_SOURCE`), looked up
/// at run time; nil where this C library lacks them.
private enum LibC {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later).
    static let addCloseFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// `pipe2`.
    static let pipe2: Pipe2? = symbol("pipe2")

    private static func symbol<Function>(_ name: String) -> Function? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Function.self) }
    }
}
