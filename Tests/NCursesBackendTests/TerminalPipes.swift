import Foundation
import NCursesBackend
#if canImport(Glibc)
import Glibc
#endif

/// An `NCursesBackend` on two pipes instead of a TTY: the test writes the
/// terminal's input and collects its output.
final class TerminalPipes {
    let backend: NCursesBackend
    let output: OutputCollector
    private var inputWriteFD: Int32
    private let inputReadFD: Int32

    /// Type "xterm-256color", locale C.UTF-8, no signal handlers (the test process keeps its own).
    /// With `writesApart`, the output is a socket of packets instead of a pipe, so that each of
    /// the backend's writes is one read (`output.reads`).
    init(termType: String = "xterm-256color", writesApart: Bool = false) throws {
        var input: [Int32] = [-1, -1]
        var out: [Int32] = [-1, -1]
        guard pipe(&input) == 0 else { throw POSIXError(.EMFILE) }
        if writesApart {
            guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &out) == 0 else { throw POSIXError(.EMFILE) }
        } else {
            guard pipe(&out) == 0 else { throw POSIXError(.EMFILE) }
        }
        inputReadFD = input[0]
        inputWriteFD = input[1]
        output = OutputCollector(fd: out[0])
        defer { close(out[1]) }  // the backend keeps its own copy; EOF comes when it lets go
        backend = try NCursesBackend(
            input: input[0], output: out[1], termType: termType, locale: "C.UTF-8", handlesSignals: false)
    }

    /// Writes `bytes` to the terminal's input.
    func type(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(inputWriteFD, $0.baseAddress, $0.count) }
            guard written > 0 else { break }
            offset += written
        }
    }

    /// Writes the UTF-8 bytes of `text`.
    func type(_ text: String) {
        type(Array(text.utf8))
    }

    /// Closes the input, as when the terminal goes away.
    func closeInput() {
        if inputWriteFD >= 0 {
            close(inputWriteFD)
            inputWriteFD = -1
        }
    }

    deinit {
        backend.shutdown()
        closeInput()
        close(inputReadFD)
        _ = output.waitForEnd(timeout: 5)
    }
}
