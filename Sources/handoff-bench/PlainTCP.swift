import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The floor for the state stream: the same bytes over a plain loopback TCP connection, one
/// thread writing 64 KiB at a time, the caller reading into one buffer reserved for the whole.
final class PlainTCP: @unchecked Sendable {
    private let bytes: [UInt8]
    private let listener: Int32
    private let port: UInt16

    init(bytes: [UInt8]) throws {
        self.bytes = bytes
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(listener, raw, length) == 0 && listen(listener, 4) == 0
                    && getsockname(listener, raw, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(listener) }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// One connection: accept on a thread that writes everything, read it all here. Returns the bytes read.
    func fetch() -> Int {
        let writer = Thread { [self] in
            let connection = accept(listener, nil, nil)
            bytes.withUnsafeBytes { raw in
                var sent = 0
                while sent < raw.count {
                    let chunk = min(65_536, raw.count - sent)
                    let written = send(connection, raw.baseAddress! + sent, chunk, Int32(MSG_NOSIGNAL))
                    if written <= 0 { break }
                    sent += written
                }
            }
            close(connection)
        }
        writer.start()
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return 0 }
        var received = [UInt8](repeating: 0, count: bytes.count)
        var total = 0
        received.withUnsafeMutableBytes { raw in
            while total < raw.count {
                let count = recv(client, raw.baseAddress! + total, raw.count - total, 0)
                if count <= 0 { break }
                total += count
            }
        }
        return total
    }
}
