import Glibc

/// Whole reads and writes on a file descriptor, retrying short transfers and EINTR.
package enum Descriptor {
    /// Writes every byte of `bytes` to `fd`; nil when all went, else the errno that stopped it.
    @discardableResult
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return n < 0 ? errno : EIO }
            written += n
        }
        return nil
    }

    /// Writes `text`'s UTF-8 to `fd`, as one write when it can; what could not be written is lost.
    package static func write(_ text: String, to fd: Int32) {
        writeAll(fd, Array(text.utf8))
    }

    /// Reads `fd` until its end or `limit` bytes, whichever comes first; nil on an error.
    package static func read(_ fd: Int32, limit: Int) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        return bytes
    }
}
