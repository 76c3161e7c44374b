import Synchronization

/// The reading half of a stream that a message carrier brings in pieces (the relay's topics,
/// the in-memory test network): bytes delivered by the carrier's thread, read by one reader at
/// a time, which waits while there are none. What was delivered is read before the end; the
/// end is nil, or the failure the carrier gave; a read after `close` throws `closedError`.
package final class ByteInbox: Sendable {
    private typealias Reader = CheckedContinuation<[UInt8]?, any Error>

    private struct State {
        var bytes: [UInt8] = []
        var ended = false
        var failure: (any Error)?
        var closed = false
        var reader: (id: UInt64, continuation: Reader)?
        var nextReaderID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let closedError: @Sendable () -> any Error

    /// An inbox whose reads after `close` throw what `closedError` makes.
    package init(closedError: @escaping @Sendable () -> any Error) {
        self.closedError = closedError
    }

    /// Whether this side closed it.
    package var isClosed: Bool { state.withLock { $0.closed } }

    /// The failure the other side ended with, if it did.
    package var failure: (any Error)? { state.withLock { $0.failure } }

    /// The other side's bytes, in order.
    package func deliver(_ bytes: [UInt8]) {
        resume { $0.bytes.append(contentsOf: bytes) }
    }

    /// The other side ended (with `failure`, when it was lost): what was delivered is read first.
    package func end(failure: (any Error)? = nil) {
        resume { state in
            state.ended = true
            if state.failure == nil { state.failure = failure }
        }
    }

    /// Closes this side: a read waiting throws. Says whether this was the first close, and
    /// whether the other side had ended before it.
    package func close() -> (first: Bool, otherEnded: Bool) {
        let (first, ended, reader) = state.withLock { state -> (Bool, Bool, Reader?) in
            defer {
                state.closed = true
                state.reader = nil
            }
            return (!state.closed, state.ended, state.reader?.continuation)
        }
        reader?.resume(throwing: closedError())
        return (first, ended)
    }

    /// Everything delivered and not read yet, waiting while there is none; nil at the end.
    package func read() async throws -> [UInt8]? {
        let id = state.withLock { state in
            state.nextReaderID += 1
            return state.nextReaderID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Reader) in
                let ready: Result<[UInt8]?, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let taken = take(&state) { return taken }
                    state.reader = (id, continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let reader = state.withLock { state -> Reader? in
                guard let reader = state.reader, reader.id == id else { return nil }
                state.reader = nil
                return reader.continuation
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    private func resume(_ change: (inout State) -> Void) {
        let woken: (Reader, Result<[UInt8]?, any Error>)? = state.withLock { state in
            change(&state)
            guard let reader = state.reader, let taken = take(&state) else { return nil }
            state.reader = nil
            return (reader.continuation, taken)
        }
        if let (reader, taken) = woken { reader.resume(with: taken) }
    }

    /// Everything waiting, the end, or nil when the reader has to wait.
    private func take(_ state: inout State) -> Result<[UInt8]?, any Error>? {
        if state.closed { return .failure(closedError()) }
        if !state.bytes.isEmpty {
            defer { state.bytes = [] }
            return .success(state.bytes)
        }
        if state.ended { return state.failure.map { .failure($0) } ?? .success(nil) }
        return nil
    }
}
