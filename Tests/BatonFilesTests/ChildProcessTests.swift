import Glibc
import Testing
@testable import BatonFiles

@Suite("A program run to its end")
struct ChildProcessTests {
    @Test("Its input in, its output and status out; it holds its three standard files and nothing else of ours")
    func onlyItsStandardFiles() throws {
        // A descriptor of this process's own, not closed on exec, as NIO's sockets are; numbered
        // high, so that it is never the one the child's shell opens for its glob (when this test
        // found 3 free, /dev/null got 3, and so did the shell's folder).
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        let held = fcntl(opened, F_DUPFD, 200)
        close(opened)
        try #require(held >= 200)
        defer { close(held) }
        let script = #"read line; echo "got $line"; for f in /proc/$$/fd/*; do printf ' %s' "${f##*/}"; done; exit 3"#
        guard case .exited(let status, let output, _) = ChildProcess.run(
            "/bin/sh", ["-c", script], input: Array("hello\n".utf8), timeout: .seconds(10))
        else {
            Issue.record("the program did not run to its end")
            return
        }
        #expect(status == 3)
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.first == "got hello")
        let numbers = (lines.last ?? "").split(separator: " ").compactMap { Int32($0) }.sorted()
        // The shell's glob may hold the folder it reads open: one descriptor above 2 at most.
        #expect(Array(numbers.prefix(3)) == [0, 1, 2], "the program's descriptors: \(numbers)")
        #expect(numbers.count <= 4 && !numbers.contains(held), "the program's descriptors: \(numbers)")
    }
}
