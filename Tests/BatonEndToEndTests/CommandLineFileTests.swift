import Foundation
import Testing

/// The built `baton` on files and keys, outside any lab: no root, network or terminal needed,
/// since each of these ends before the network or the terminal is touched. Every run has a
/// deadline, so a program that blocks (on a FIFO, on standard input) fails the test instead
/// of hanging it. One run at a time, each waited for on a thread of its own: the unit tests
/// beside these need the few threads of Swift's shared pool.
@Suite("baton key and baton edit on the command line", .serialized, .ownThread, .timeLimit(.minutes(2)))
struct CommandLineFileTests {
    /// `Command.run` on a thread of its own, so that waiting for the program blocks no pool thread.
    @discardableResult
    static func run(
        _ arguments: [String], environment: [String: String], check: Bool = true, input: [UInt8]? = nil
    ) async throws -> CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    try Command.run(arguments, environment: environment, check: check, input: input, timeout: 20)
                })
            }
        }
    }

    /// `run`, with the seconds the program took, counted on the thread that waits for it: not
    /// the time the test's task then waits for one of the pool's threads, which a lab test
    /// running beside it may hold for many seconds.
    static func timedRun(_ arguments: [String], environment: [String: String]) async throws -> (result: CommandResult, seconds: Double) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let started = Date()
                let result = Result { try Command.run(arguments, environment: environment, check: false, timeout: 20) }
                let seconds = Date().timeIntervalSince(started)
                continuation.resume(with: result.map { ($0, seconds) })
            }
        }
    }

    /// A fresh home folder and the environment that points `baton` at it.
    struct Home {
        let folder: String
        var environment: [String: String] {
            ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
             "HOME": folder, "XDG_CONFIG_HOME": folder + "/config"]
        }
        var keyFile: String { folder + "/config/baton/group.key" }

        init() throws {
            folder = NSTemporaryDirectory() + "baton-cli-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// 32 random bytes in base64, as `baton key` prints a key.
    static func randomKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    static func mode(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    @Test("`baton key --import -` reads the key from standard input; `baton key | baton key --import -` copies it")
    func importFromStandardInput() async throws {
        let baton = try Binaries.baton()
        let (a, b) = (try Home(), try Home())
        defer { a.remove(); b.remove() }
        let key = Self.randomKey()

        let imported = try await Self.run(
            [baton, "key", "--import", "-"], environment: a.environment, input: Array("  \(key) \t\n".utf8))
        #expect(imported.output.hasPrefix("Imported. \(a.keyFile) now holds the shared key"))
        // A machine that imports a key is not in the group yet: it is told to pair.
        #expect(imported.output.contains("hears no one until this machine is paired"), "\(imported.output)")
        #expect(try String(contentsOfFile: a.keyFile, encoding: .utf8) == key + "\n")
        #expect(Self.mode(a.keyFile) == 0o600)
        #expect(Self.mode(a.folder + "/config/baton") == 0o700)

        // Standard output is the key alone, to pipe; the hints, which suggest standard input, go to stderr.
        let shown = try await Self.run([baton, "key"], environment: a.environment)
        #expect(shown.output == key + "\n")
        #expect(shown.errorOutput.hasPrefix("The key in \(a.keyFile).\nTo let another machine in, pair them: `baton pair` here"),
            "\(shown.errorOutput)")
        #expect(shown.errorOutput.contains("baton key --import -"))
        #expect(shown.errorOutput.contains("baton key | ssh OTHER baton key --import -"))
        #expect(!shown.errorOutput.contains(key), "a hint repeats the key, which belongs on stdout only")

        try await Self.run([baton, "key", "--import", "-"], environment: b.environment, input: Array(shown.output.utf8))
        #expect(try String(contentsOfFile: b.keyFile, encoding: .utf8) == key + "\n")

        // A key on the command line still works, for scripts.
        let other = Self.randomKey()
        try await Self.run([baton, "key", "--import", other], environment: b.environment)
        #expect(try String(contentsOfFile: b.keyFile, encoding: .utf8) == other + "\n")
    }

    @Test("`baton key --import -` with nothing on standard input fails, says how to send a key, and writes nothing")
    func importNothing() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let result = try await Self.run(
            [baton, "key", "--import", "-"], environment: home.environment, check: false, input: [])
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("No key on standard input. Paste it after `baton key --import -`"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: home.keyFile))
    }

    @Test("A key file others can read is refused with the chmod that fixes it")
    func exposedKeyFile() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        try await Self.run([baton, "key", "--import", "-"], environment: home.environment, input: Array(Self.randomKey().utf8))
        #expect(chmod(home.keyFile, 0o644) == 0)
        for arguments in [["key"], ["key", "--key-file", home.keyFile]] {
            let result = try await Self.run([baton] + arguments, environment: home.environment, check: false)
            #expect(result.status == 1)
            #expect(result.output.isEmpty, "the key was printed from a file others can read")
            #expect(result.errorOutput.contains(
                "The group key file \(home.keyFile) is readable by others (mode 0644); run: chmod 600 '\(home.keyFile)'"),
                "\(arguments): \(result.errorOutput)")
        }
    }

    @Test("`baton edit` refuses a FIFO, a device and a file over 64 MB at once, saying what it is")
    func editRefuses() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let fifo = home.folder + "/notes.txt"
        #expect(mkfifo(fifo, 0o644) == 0)
        defer {
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)  // frees a reader stuck in open, were there one
            if fd >= 0 { close(fd) }
        }
        try FileManager.default.createSymbolicLink(atPath: home.folder + "/null.txt", withDestinationPath: "/dev/null")
        let big = home.folder + "/big.log"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 80 * 1024 * 1024) == 0)  // sparse

        let cases = [
            (fifo, "\(fifo) is a FIFO; Baton edits regular files only."),
            (home.folder + "/null.txt", "\(home.folder)/null.txt (a link to /dev/null) is a character device; Baton edits regular files only."),
            (big, "\(big) is 80 MB; Baton opens files up to 64 MB."),
        ]
        for (path, message) in cases {
            let result = try await Self.run([baton, "edit", path], environment: home.environment, check: false)
            #expect(result.status == 1)
            #expect(result.errorOutput.contains(message), "\(path): \(result.errorOutput)")
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }

    @Test("Without a terminal the UI commands end at once with status 1 and name baton peer")
    func noTerminal() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        // Standard input is /dev/null and standard output a pipe, as under nohup or in a script;
        // TERM is set, as it is there, so ncurses itself would start (and the loop used to spin).
        var environment = home.environment
        environment["TERM"] = "xterm-256color"
        for arguments in [[], ["edit", home.folder + "/f.txt"], ["--continue-activity"], ["edit", "--continue-activity"]] {
            let (result, seconds) = try await Self.timedRun([baton] + arguments, environment: environment)
            #expect(result.status == 1, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.contains("baton needs a terminal; for scripts use baton peer (see baton peer --help)"), "\(arguments): \(result.errorOutput)")
            #expect(seconds < 5, "\(arguments) waited for something first")
        }
        #expect(!FileManager.default.fileExists(atPath: home.keyFile), "the key was loaded before the terminal was checked")
        #expect(!FileManager.default.fileExists(atPath: home.folder + "/f.txt"))
    }

    @Test("A bad BATON_KEY is BATON_KEY's to fix, not a new key file's")
    func badEnvironmentKey() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        var environment = home.environment
        environment["BATON_KEY"] = "garbage"
        let result = try await Self.run([baton, "key"], environment: environment, check: false)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("BATON_KEY holds no usable group key"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("unset BATON_KEY"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("baton key --new"), "\(result.errorOutput)")
    }

    @Test("`baton key --new` keeps the key it replaces as group.key.old (mode 0600) and says so")
    func newKeepsOld() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let first = try await Self.run([baton, "key", "--new"], environment: home.environment)
        #expect(!first.errorOutput.contains("group.key.old"), "there was no key to keep")
        let second = try await Self.run([baton, "key", "--new"], environment: home.environment)
        #expect(try String(contentsOfFile: home.keyFile + ".old", encoding: .utf8) == first.output)
        #expect(try String(contentsOfFile: home.keyFile, encoding: .utf8) == second.output)
        #expect(Self.mode(home.keyFile + ".old") == 0o600)
        #expect(second.errorOutput.contains("The previous key is kept in \(home.keyFile).old"), "\(second.errorOutput)")
    }

    @Test("`baton edit FILE --continue-activity` is refused with what to do instead")
    func editFileWithContinue() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let result = try await Self.run(
            [baton, "edit", "mine.txt", "--continue-activity"], environment: home.environment, check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("run baton edit --continue-activity, then save with Ctrl-S"), "\(result.errorOutput)")
        let help = try await Self.run([baton, "edit", "--help"], environment: home.environment)
        let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")  // the help wraps lines
        #expect(words.contains("so --continue-activity takes no FILE"), "\(help.output)")
    }

    @Test("Options before the command, and a mistyped command, get the command line to run instead")
    func optionsBeforeCommand() async throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let cases: [([String], String)] = [
            (["--peer", "10.66.0.2", "edit", "notes.txt"], "go after the command: baton edit --peer 10.66.0.2 notes.txt"),
            (["--name", "x", "monitor"], "go after the command: baton monitor --name x"),
            (["edt", "notes.txt"], "'edt' is not a command; did you mean edit? baton edit notes.txt"),
            (["moniter"], "did you mean monitor? baton monitor"),
            (["dev.baton.editing"], "use --continue-activity dev.baton.editing"),
        ]
        for (arguments, message) in cases {
            let result = try await Self.run([baton] + arguments, environment: home.environment, check: false)
            #expect(result.status != 0)
            #expect(result.errorOutput.contains(message), "\(arguments): \(result.errorOutput)")
        }
    }
}
