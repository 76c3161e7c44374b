import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Drains a file descriptor on a background thread (so a terminal writing to
/// a pipe or pty never blocks) and keeps every byte read.
final class OutputCollector: @unchecked Sendable {
    private let condition = NSCondition()
    private var collected: [UInt8] = []
    private var readCount = 0
    private var ended = false

    /// Starts reading `fd` until end of file (or EIO, a pty whose other side closed). Takes ownership of `fd`.
    init(fd: Int32) {
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                condition.lock()
                if count > 0 {
                    collected += buffer[0..<count]
                    readCount += 1
                } else {
                    ended = true
                }
                condition.broadcast()
                condition.unlock()
                if count <= 0 { break }
            }
            close(fd)
        }
        thread.start()
    }

    /// Everything read so far.
    var bytes: [UInt8] {
        condition.lock()
        defer { condition.unlock() }
        return collected
    }

    /// How many reads brought bytes so far: on a socket of packets (`SOCK_SEQPACKET`), how many
    /// writes the other side made.
    var reads: Int {
        condition.lock()
        defer { condition.unlock() }
        return readCount
    }

    /// Blocks until `predicate(bytes, ended)` holds or `timeout` passes; returns whether it held.
    func wait(timeout: TimeInterval = 5, until predicate: ([UInt8], Bool) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(collected, ended) {
            if !condition.wait(until: deadline) { return predicate(collected, ended) }
        }
        return true
    }

    /// Blocks until the writer side is closed; returns whether that happened before the deadline.
    func waitForEnd(timeout: TimeInterval = 5) -> Bool {
        wait(timeout: timeout) { _, ended in ended }
    }
}
