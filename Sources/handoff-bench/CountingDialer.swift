import Handoff
import Synchronization

/// Wraps a dialer and counts the reads its connections serve (how the bytes are handed over).
final class CountingDialer: StreamDialer {
    let inner: any StreamDialer
    let reads = Atomic<Int>(0)

    init(_ inner: any StreamDialer) { self.inner = inner }

    func connect(host: String, port: Int) async throws -> any StreamConnection {
        Counted(inner: try await inner.connect(host: host, port: port), dialer: self)
    }

    struct Counted: StreamConnection {
        let inner: any StreamConnection
        let dialer: CountingDialer
        func write(_ bytes: [UInt8]) async throws { try await inner.write(bytes) }
        func read() async throws -> [UInt8]? {
            dialer.reads.add(1, ordering: .relaxed)
            return try await inner.read()
        }
        func close() async { await inner.close() }
    }
}
