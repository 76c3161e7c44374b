import Handoff
import Synchronization
import HandoffWire

/// The client's end of one in-memory connection; the server's machine runs inside it.
final class InMemoryStreamConnection: StreamConnection {
    private enum Delivery {
        case bytes([UInt8])
        case end
        case wait
    }

    private struct State {
        var machine: StateServerConnection
        var faults: StreamFaults
        /// Server bytes written and not yet read.
        var outbound: [UInt8] = []
        /// Server bytes read so far on this connection.
        var delivered = 0
        var streaming = false
        /// The server closed: what is queued still arrives, then the end.
        var serverClosed = false
        /// Dropped or closed by the client: nothing more arrives.
        var ended = false
        var clientClosed = false
        var reader: (id: UInt64, continuation: CheckedContinuation<[UInt8]?, any Error>)?
        var nextReaderID: UInt64 = 0
        /// Once the client sent OPEN: the server's end, which takes every byte the client writes.
        var pipe: InMemoryServerPipe?
    }

    private let state: Mutex<State>
    private let server: InMemoryStreamServer
    private let streams: InMemoryStreams

    init(machine: StateServerConnection, faults: StreamFaults, server: InMemoryStreamServer, streams: InMemoryStreams) {
        state = Mutex(State(machine: machine, faults: faults))
        self.server = server
        self.streams = streams
    }

    func write(_ bytes: [UInt8]) async throws {
        var opened: (ContinuationOpening, InMemoryServerPipe)?
        var carried: InMemoryServerPipe?
        let woken: (CheckedContinuation<[UInt8]?, any Error>, Delivery)? = try state.withLock { state in
            guard !state.clientClosed else { throw InMemoryStreamError.closed }
            // Bytes to a server that closed are lost, as they would be on a socket.
            guard !state.serverClosed, !state.ended else { return nil }
            if let pipe = state.pipe {
                carried = pipe
                return nil
            }
            for output in state.machine.receive(bytes) {
                switch output {
                case .write(let written):
                    state.outbound.append(contentsOf: written)
                    server.noteSent(written.count)
                case .startStreaming:
                    state.streaming = true
                case .close(let reason):
                    state.serverClosed = true
                    server.noteClose(reason)
                case .openStream(let opening):
                    // The connection is the continuation stream's now; the door decides, outside the lock.
                    let pipe = InMemoryServerPipe(connection: self, streams: streams)
                    state.pipe = pipe
                    opened = (opening, pipe)
                }
            }
            return wakeReader(&state)
        }
        if let (continuation, delivery) = woken { resume(continuation, with: delivery) }
        carried?.deliver(bytes)
        if case (var opening, let pipe)? = opened, !server.shelf.continuationDoor.enter(opening, pipe: pipe) {
            // Nobody takes streams here: refused as by a program without them.
            try? serverWrite(opening.refusal())
            serverClose()
        }
    }

    func read() async throws -> [UInt8]? {
        let id: UInt64
        let immediate: Delivery? = try state.withLock { state in
            guard !state.clientClosed else { throw InMemoryStreamError.closed }
            let delivery = next(&state)
            if case .wait = delivery { return nil }
            return delivery
        }
        if let immediate { return try value(immediate) }
        id = state.withLock { state in
            state.nextReaderID += 1
            return state.nextReaderID
        }
        streams.parked.add(1, ordering: .sequentiallyConsistent)
        defer { streams.parked.subtract(1, ordering: .sequentiallyConsistent) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8]?, any Error>) in
                // Checked under the lock that `onCancel`, `write` and `close` take.
                let now: Result<Delivery, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.clientClosed { return .failure(InMemoryStreamError.closed) }
                    let delivery = next(&state)
                    if case .wait = delivery {
                        state.reader = (id, continuation)
                        return nil
                    }
                    return .success(delivery)
                }
                switch now {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(let delivery): resume(continuation, with: delivery)
                case nil: break
                }
            }
        } onCancel: {
            let reader = state.withLock { state -> CheckedContinuation<[UInt8]?, any Error>? in
                guard let reader = state.reader, reader.id == id else { return nil }
                state.reader = nil
                return reader.continuation
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    func close() async {
        let (reader, pipe) = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>?, InMemoryServerPipe?) in
            guard !state.clientClosed else { return (nil, nil) }
            state.clientClosed = true
            if !state.serverClosed, !state.ended, state.pipe == nil {
                for case .close(let reason) in state.machine.receiveEnd() { server.noteClose(reason) }
            }
            state.ended = true
            defer { state.reader = nil }
            return (state.reader?.continuation, state.pipe)
        }
        reader?.resume(throwing: InMemoryStreamError.closed)
        pipe?.end()
        server.closed(self)
    }

    /// The network drops the connection: what was not read is lost, the client reads the end.
    func drop() {
        let (woken, pipe) = state.withLock { state -> ((CheckedContinuation<[UInt8]?, any Error>, Delivery)?, InMemoryServerPipe?) in
            state.ended = true
            state.outbound = []
            return (wakeReader(&state), state.pipe)
        }
        if let (continuation, delivery) = woken { resume(continuation, with: delivery) }
        pipe?.end()
    }

    // MARK: - From the server's end of a continuation stream

    /// Bytes the server's continuation stream wrote, for the client to read.
    func serverWrite(_ bytes: [UInt8]) throws {
        let woken = try state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>, Delivery)? in
            guard !state.ended, !state.serverClosed else { throw InMemoryStreamError.closed }
            state.outbound.append(contentsOf: bytes)
            server.noteSent(bytes.count)
            return wakeReader(&state)
        }
        if let (continuation, delivery) = woken { resume(continuation, with: delivery) }
    }

    /// The server's continuation stream closed: the client reads what was written, then the end.
    func serverClose() {
        let woken = state.withLock { state -> (CheckedContinuation<[UInt8]?, any Error>, Delivery)? in
            state.serverClosed = true
            return wakeReader(&state)
        }
        if let (continuation, delivery) = woken { resume(continuation, with: delivery) }
    }

    /// The waiting reader and what it gets now, when it no longer has to wait.
    private func wakeReader(_ state: inout State) -> (CheckedContinuation<[UInt8]?, any Error>, Delivery)? {
        guard let reader = state.reader else { return nil }
        let delivery = next(&state)
        if case .wait = delivery { return nil }
        state.reader = nil
        return (reader.continuation, delivery)
    }

    /// The next bytes for the client, through the faults.
    private func next(_ state: inout State) -> Delivery {
        if state.ended { return .end }
        let faults = state.faults
        if let cut = faults.cutAfter, state.delivered >= cut {
            state.ended = true
            return .end
        }
        if let stall = faults.stallAfter, state.delivered >= stall { return .wait }
        // Back-pressure: the next DATA frame is sealed only once what came before was read.
        if state.outbound.isEmpty, state.streaming {
            if let frame = state.machine.nextDataFrame() {
                state.outbound = frame
                server.noteSent(frame.count)
            } else {
                // Everything was sent: the server closes, as Baton's does.
                state.streaming = false
                state.serverClosed = true
            }
        }
        if state.outbound.isEmpty { return state.serverClosed ? .end : .wait }
        var count = min(faults.readSize, state.outbound.count)
        if let cut = faults.cutAfter { count = min(count, cut - state.delivered) }
        if let stall = faults.stallAfter { count = min(count, stall - state.delivered) }
        var chunk = Array(state.outbound[..<count])
        state.outbound.removeFirst(count)
        if let flip = faults.flipAt, flip >= state.delivered, flip < state.delivered + count {
            chunk[flip - state.delivered] ^= 0x01
        }
        state.delivered += count
        return .bytes(chunk)
    }

    private func value(_ delivery: Delivery) throws -> [UInt8]? {
        switch delivery {
        case .bytes(let bytes): return bytes
        case .end, .wait: return nil
        }
    }

    private func resume(_ continuation: CheckedContinuation<[UInt8]?, any Error>, with delivery: Delivery) {
        switch delivery {
        case .bytes(let bytes): continuation.resume(returning: bytes)
        case .end, .wait: continuation.resume(returning: nil)
        }
    }
}
