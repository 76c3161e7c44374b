import Handoff
import Synchronization
import HandoffWire

/// The server's end of an in-memory connection whose client sent OPEN (docs/PROTOCOL.md
/// section 10, "Continuation streams"): once the server's shelf's door took it, the program
/// that holds the activity reads the client's bytes here and writes its own, which the client
/// reads through the connection's faults as it reads a fetch's.
final class InMemoryServerPipe: StreamPipe {
    private typealias Reader = CheckedContinuation<[UInt8]?, any Error>

    private struct Inbox {
        var bytes: [UInt8] = []
        /// The client closed, or the network dropped the connection.
        var ended = false
        /// Closed by this (the server's) side.
        var closed = false
        var reader: (id: UInt64, continuation: Reader)?
        var nextReaderID: UInt64 = 0
    }

    private let inbox = Mutex(Inbox())
    private weak let connection: InMemoryStreamConnection?
    private let streams: InMemoryStreams

    init(connection: InMemoryStreamConnection, streams: InMemoryStreams) {
        self.connection = connection
        self.streams = streams
    }

    func write(_ bytes: [UInt8]) async throws {
        guard !inbox.withLock({ $0.closed }), let connection else { throw InMemoryStreamError.closed }
        try connection.serverWrite(bytes)
    }

    func read() async throws -> [UInt8]? {
        let id = inbox.withLock { inbox in
            inbox.nextReaderID += 1
            return inbox.nextReaderID
        }
        streams.parked.add(1, ordering: .sequentiallyConsistent)
        defer { streams.parked.subtract(1, ordering: .sequentiallyConsistent) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Reader) in
                let ready: Result<[UInt8]?, any Error>? = inbox.withLock { inbox in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let taken = Self.take(&inbox) { return taken }
                    inbox.reader = (id, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let reader = inbox.withLock { inbox -> Reader? in
                guard let reader = inbox.reader, reader.id == id else { return nil }
                inbox.reader = nil
                return reader.continuation
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    func close() async {
        let (first, reader) = inbox.withLock { inbox -> (Bool, Reader?) in
            defer {
                inbox.closed = true
                inbox.reader = nil
            }
            return (!inbox.closed, inbox.reader?.continuation)
        }
        reader?.resume(throwing: InMemoryStreamError.closed)
        if first { connection?.serverClose() }
    }

    // MARK: - From the client's end

    /// Bytes the client wrote.
    func deliver(_ bytes: [UInt8]) {
        resume { $0.bytes.append(contentsOf: bytes) }
    }

    /// The client closed, or the connection dropped: what was delivered is read, then the end.
    func end() {
        resume { $0.ended = true }
    }

    private func resume(_ change: (inout Inbox) -> Void) {
        let woken: (Reader, Result<[UInt8]?, any Error>)? = inbox.withLock { inbox in
            change(&inbox)
            guard let reader = inbox.reader, let taken = Self.take(&inbox) else { return nil }
            inbox.reader = nil
            return (reader.continuation, taken)
        }
        if let (reader, taken) = woken { reader.resume(with: taken) }
    }

    private static func take(_ inbox: inout Inbox) -> Result<[UInt8]?, any Error>? {
        if inbox.closed { return .failure(InMemoryStreamError.closed) }
        if !inbox.bytes.isEmpty {
            defer { inbox.bytes = [] }
            return .success(inbox.bytes)
        }
        return inbox.ended ? .success(nil) : nil
    }
}
