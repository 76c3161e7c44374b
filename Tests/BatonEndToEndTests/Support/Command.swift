import Foundation

/// What a finished command printed and how it exited.
struct CommandResult: Sendable {
    var status: Int32
    var output: String
    var errorOutput: String
}

/// Runs programs to completion and collects their output.
enum Command {
    /// Runs `arguments` (the first is the program, found on `PATH` when not a path) and waits for it.
    /// With `check`, a non-zero exit throws `E2EError.commandFailed`. `input` (at most 64 KB, a
    /// pipe's buffer) is its standard input, else /dev/null. With `timeout`, a program still
    /// running after that many seconds is killed and `E2EError.timedOut` thrown.
    @discardableResult
    static func run(
        _ arguments: [String], environment: [String: String]? = nil, check: Bool = true,
        input: [UInt8]? = nil, timeout: Double? = nil
    ) throws -> CommandResult {
        let out = try PipeDescriptors()
        let err = try PipeDescriptors()
        var stdin: Int32 = -1
        if let input {
            let pipe = try PipeDescriptors()
            let written = input.withUnsafeBytes { write(pipe.write, $0.baseAddress, $0.count) }
            close(pipe.write)
            guard written == input.count else {
                close(pipe.read)
                throw E2EError.commandFailed(command: ["write to the standard input of"] + arguments, status: errno, output: "")
            }
            stdin = pipe.read
        }
        defer { if stdin >= 0 { close(stdin) } }
        let child: ChildProcess
        do {
            child = try ChildProcess(arguments, environment: environment, input: stdin, output: out.write, error: err.write)
        } catch {
            for fd in [out.read, out.write, err.read, err.write] { close(fd) }
            throw error
        }
        close(out.write)
        close(err.write)
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        // Read both pipes as data comes, so that neither can fill up and stall the program.
        var collected = [out.read: [UInt8](), err.read: [UInt8]()]
        var open = [out.read, err.read]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let wait = deadline.map { Int32(max(0, $0.timeIntervalSinceNow * 1000)) } ?? -1
            let ready = Glibc.poll(&fds, nfds_t(fds.count), wait)
            if ready == 0, let timeout {
                child.signal(SIGKILL)
                child.wait()
                for fd in open { close(fd) }
                let seen = String(decoding: collected[out.read]! + collected[err.read]!, as: UTF8.self)
                throw E2EError.timedOut(condition: "\(arguments.joined(separator: " ")) to end", seconds: timeout, lastSeen: seen)
            }
            guard ready >= 0 || errno == EINTR else { break }
            for entry in fds where entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[entry.fd]! += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    close(entry.fd)
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        let result = CommandResult(
            status: child.wait(),
            output: String(decoding: collected[out.read]!, as: UTF8.self),
            errorOutput: String(decoding: collected[err.read]!, as: UTF8.self))
        if check && result.status != 0 {
            throw E2EError.commandFailed(
                command: arguments, status: result.status, output: result.output + result.errorOutput)
        }
        return result
    }

    /// The absolute path of `program`: itself when it contains a slash, else the first match on `PATH`.
    static func resolve(_ program: String) throws -> String {
        if program.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: program) else {
                throw E2EError.programNotFound(program: program)
            }
            return program
        }
        guard let found = which(program) else { throw E2EError.programNotFound(program: program) }
        return found
    }

    /// The first executable called `program` on `PATH` (plus the sbin folders root's tools live in).
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return folders.map { $0 + "/" + program }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
