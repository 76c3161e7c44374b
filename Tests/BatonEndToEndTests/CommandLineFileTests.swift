import Foundation
import Testing

/// The built `baton` on files and keys, outside any lab: no root, network or terminal needed,
/// since each of these ends before the network or the terminal is touched. Every run has a
/// deadline, so a program that blocks (on a FIFO, on standard input) fails the test instead
/// of hanging it.
@Suite("baton key and baton edit on the command line", .timeLimit(.minutes(2)))
struct CommandLineFileTests {
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
    func importFromStandardInput() throws {
        let baton = try Binaries.baton()
        let (a, b) = (try Home(), try Home())
        defer { a.remove(); b.remove() }
        let key = Self.randomKey()

        let imported = try Command.run(
            [baton, "key", "--import", "-"], environment: a.environment, input: Array("  \(key) \t\n".utf8), timeout: 20)
        #expect(imported.output.hasPrefix("Imported. \(a.keyFile) now holds the shared key"))
        #expect(try String(contentsOfFile: a.keyFile, encoding: .utf8) == key + "\n")
        #expect(Self.mode(a.keyFile) == 0o600)
        #expect(Self.mode(a.folder + "/config/baton") == 0o700)

        // Standard output is the key alone, to pipe; the hints, which suggest standard input, go to stderr.
        let shown = try Command.run([baton, "key"], environment: a.environment, timeout: 20)
        #expect(shown.output == key + "\n")
        #expect(shown.errorOutput.contains("baton key --import -"))
        #expect(shown.errorOutput.contains("baton key | ssh OTHER baton key --import -"))
        #expect(!shown.errorOutput.contains(key), "a hint repeats the key, which belongs on stdout only")

        try Command.run([baton, "key", "--import", "-"], environment: b.environment, input: Array(shown.output.utf8), timeout: 20)
        #expect(try String(contentsOfFile: b.keyFile, encoding: .utf8) == key + "\n")

        // A key on the command line still works, for scripts.
        let other = Self.randomKey()
        try Command.run([baton, "key", "--import", other], environment: b.environment, timeout: 20)
        #expect(try String(contentsOfFile: b.keyFile, encoding: .utf8) == other + "\n")
    }

    @Test("`baton key --import -` with nothing on standard input fails, says how to send a key, and writes nothing")
    func importNothing() throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        let result = try Command.run(
            [baton, "key", "--import", "-"], environment: home.environment, check: false, input: [], timeout: 20)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("No key on standard input. Paste it after `baton key --import -`"), "\(result.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: home.keyFile))
    }

    @Test("A key file others can read is refused with the chmod that fixes it")
    func exposedKeyFile() throws {
        let baton = try Binaries.baton()
        let home = try Home()
        defer { home.remove() }
        try Command.run([baton, "key", "--import", "-"], environment: home.environment, input: Array(Self.randomKey().utf8), timeout: 20)
        #expect(chmod(home.keyFile, 0o644) == 0)
        for arguments in [["key"], ["key", "--key-file", home.keyFile]] {
            let result = try Command.run([baton] + arguments, environment: home.environment, check: false, timeout: 20)
            #expect(result.status == 1)
            #expect(result.output.isEmpty, "the key was printed from a file others can read")
            #expect(result.errorOutput.contains(
                "The group key file \(home.keyFile) is readable by others (mode 0644); run: chmod 600 '\(home.keyFile)'"),
                "\(arguments): \(result.errorOutput)")
        }
    }

    @Test("`baton edit` refuses a FIFO, a device and a file over 64 MB at once, saying what it is")
    func editRefuses() throws {
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
            let result = try Command.run([baton, "edit", path], environment: home.environment, check: false, timeout: 20)
            #expect(result.status == 1)
            #expect(result.errorOutput.contains(message), "\(path): \(result.errorOutput)")
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
    }
}
