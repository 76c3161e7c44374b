import Glibc
import Testing
@testable import ShellHost

/// Starting a keeper: its line on the pipe, and what it is given to say it on. A shell stands in
/// for the keeper (`executable`), so each case says what a keeper might.
@Suite("A keeper's start: the pipe it answers on")
struct KeeperProcessTests {
    /// Runs `/bin/sh -c script` as the keeper.
    func start(_ script: String, timeout: Duration = .seconds(10)) throws(Pseudoterminal.StartError) -> String {
        try KeeperProcess.start(arguments: ["-c", script], timeout: timeout, executable: "/bin/sh")
    }

    @Test("The keeper holds the pipe as descriptor 3 and no other pipe: its line is heard")
    func onlyTheReadyPipe() throws {
        // Lists the keeper's descriptors that are pipes, on the pipe. Standard files are /dev/null.
        let said = try start(#"line=ok; for f in /proc/$$/fd/*; do [ -p "$f" ] && line="$line ${f##*/}"; done; echo "$line" >&3"#)
        #expect(said == "3")
    }

    @Test("The keeper's descriptors beyond 3 are closed, whatever this process holds open")
    func nothingElseInherited() throws {
        // A descriptor of this process's own, not closed on exec.
        let held = open("/dev/null", O_RDONLY)
        try #require(held > KeeperProcess.readyDescriptor)
        defer { close(held) }
        let said = try start(#"line=ok; for f in /proc/$$/fd/*; do line="$line ${f##*/}"; done; echo "$line" >&3"#)
        // The shell's glob may hold the folder it reads open: anything above 3 but that is a leak.
        let numbers = said.split(separator: " ").compactMap { Int32($0) }.sorted()
        #expect(Array(numbers.prefix(4)) == [0, 1, 2, 3], "the keeper's descriptors: \(said)")
        #expect(!numbers.contains(held), "descriptor \(held) was inherited: \(said)")
    }

    @Test("A keeper that ends without a word is heard to end (not timed out), with its status")
    func endedWithoutAWord() {
        #expect {
            _ = try self.start("exit 3", timeout: .seconds(30))
        } throws: { error in
            "\(error)".contains("ended without a word (exit status 3)")
        }
    }

    @Test("A keeper's error line is the error")
    func errorLine() {
        #expect {
            _ = try self.start("echo 'error no route to 239.255.77.88' >&3; exit 1")
        } throws: { error in
            "\(error)".contains("no route to 239.255.77.88")
        }
    }

    @Test("A keeper that says nothing and goes on is given up on after the timeout")
    func silentKeeper() {
        #expect {
            _ = try self.start("exec sleep 30", timeout: .milliseconds(300))
        } throws: { error in
            "\(error)".contains("did not answer")
        }
    }
}
