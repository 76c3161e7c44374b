import Handoff
import Synchronization
import HandoffWire

/// The server's end of an in-memory connection whose client sent OPEN (docs/PROTOCOL.md
/// section 10, "Continuation streams"): once the server's shelf's door took it, the program
/// that holds the activity reads the client's bytes here and writes its own, which the client
/// reads through the connection's faults as it reads a fetch's.
final class InMemoryServerPipe: StreamPipe {
    private let inbox = ByteInbox(closedError: { InMemoryStreamError.closed })
    private weak let connection: InMemoryStreamConnection?
    private let streams: InMemoryStreams

    init(connection: InMemoryStreamConnection, streams: InMemoryStreams) {
        self.connection = connection
        self.streams = streams
    }

    func write(_ bytes: [UInt8]) async throws {
        guard !inbox.isClosed, let connection else { throw InMemoryStreamError.closed }
        try connection.serverWrite(bytes)
    }

    func read() async throws -> [UInt8]? {
        streams.parked.add(1, ordering: .sequentiallyConsistent)
        defer { streams.parked.subtract(1, ordering: .sequentiallyConsistent) }
        return try await inbox.read()
    }

    func close() async {
        if inbox.close().first { connection?.serverClose() }
    }

    // MARK: - From the client's end

    /// Bytes the client wrote.
    func deliver(_ bytes: [UInt8]) {
        inbox.deliver(bytes)
    }

    /// The client closed, or the connection dropped: what was delivered is read, then the end.
    func end() {
        inbox.end()
    }
}
