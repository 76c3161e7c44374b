import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ports of 127.0.0.1 for tests that must name a port before they listen on it (a pairing's port,
/// a broker's).
///
/// A port the kernel picked for `bind(0)` comes from the ephemeral range, where it goes back once
/// the probe closes: any connection a parallel test opens meanwhile may take it as its own end,
/// and the listen then fails with "Address already in use" (a pairing test, once in a full run).
/// These come from below that range instead, each once per process, and free for TCP and UDP when
/// handed out.
package enum TestPorts {
    /// Below 32,768, where Linux's ephemeral range (`ip_local_port_range`) starts by default.
    static let range = 20_000..<32_000
    private static let next = Atomic<Int>(0)
    private static let start = Int.random(in: 0..<8_000)

    /// A port that was free for TCP and UDP on 127.0.0.1 a moment ago and is not handed out again
    /// by this process.
    package static func free() -> Int {
        while true {
            let offset = next.add(1, ordering: .sequentiallyConsistent).newValue
            let port = range.lowerBound + (start + offset) % range.count
            if bindable(port, type: Int32(SOCK_STREAM.rawValue)), bindable(port, type: Int32(SOCK_DGRAM.rawValue)) {
                return port
            }
        }
    }

    private static func bindable(_ port: Int, type: Int32) -> Bool {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
