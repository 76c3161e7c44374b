import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// `--peer HOST[:PORT]`: where a joiner finds the sharer without a HELLO.
enum PairingPeerAddress {
    /// The host and port of `text`; a port after the last colon, else `defaultPort`.
    static func split(_ text: String, defaultPort: Int) -> (host: String, port: Int) {
        if let colon = text.lastIndex(of: ":"), let number = Int(text[text.index(after: colon)...]) {
            return (String(text[..<colon]), number)
        }
        return (text, defaultPort)
    }

    /// The first IPv4 address of `text`'s host (the sharer listens on IPv4 only), at its port.
    static func resolve(_ text: String, defaultPort: Int) throws(PairingSetupError) -> SocketAddress {
        let (host, port) = split(text, defaultPort: defaultPort)
        guard (0...65_535).contains(port), let address = ipv4(host: host, port: port) else {
            throw PairingSetupError("--peer \(text): cannot resolve \(host).")
        }
        return address
    }

    private static func ipv4(host: String, port: Int) -> SocketAddress? {
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0 else { return nil }
        defer { freeaddrinfo(result) }
        guard let found = result?.pointee.ai_addr else { return nil }
        let address = found.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
        return SocketAddress(address, host: host)
    }
}
