import Crypto
import FoundationEssentials
import HandoffWire

/// Fetches one kept state from its source over the state stream, resuming after drops
/// (docs/PROTOCOL.md, "Resuming" and "Limits").
///
/// Every wait — connecting, each handshake reply, each read — is raced against `clock`, so
/// tests run the timeouts in virtual time with `ManualClock`. The state is gathered into one
/// buffer reserved once for its whole size, and returned only when its SHA-256 matches.
public struct StateFetcher: Sendable {
    /// The client's timeouts, retry schedule and largest state.
    public struct Limits: Equatable, Sendable {
        /// Connecting to the source.
        public var connect: Duration = .seconds(2)
        /// Each handshake reply: the ServerHello, then START or ERROR after the GET.
        public var reply: Duration = .seconds(2)
        /// No new byte on a connection that is streaming; then the fetch resumes on a new one.
        public var idle: Duration = .seconds(3)
        /// The wait before connecting again after the 1st, 2nd, … connection in a row without
        /// a new byte (the last value repeats). A connection that brought bytes is followed by
        /// a new one at once.
        public var backoff: [Duration] = [.zero, .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800)]
        /// Connections in a row without a new byte after which the fetch gives up.
        public var connectionsWithoutProgress = 6
        /// The largest state fetched at all: a larger `size` is refused before any connection,
        /// so an OFFER cannot make this side reserve more memory than this.
        public var maximumSize = ActivityCenter.Configuration.defaultStateLimit

        public init() {}
    }

    /// Who fetches: this process's device and sender id, which sign and name its handshakes.
    public let identity: StreamIdentity
    /// The group key the OFFERs this fetcher follows were opened with.
    public let groupKey: GroupKey
    public let dialer: any StreamDialer
    public let clock: any HandoffClock
    public var limits: Limits
    /// Where each connection's X25519 private key comes from: fresh keys unless a test fixes them.
    public var ephemeralKeys: @Sendable () -> [UInt8]

    public init(
        identity: StreamIdentity, groupKey: GroupKey, dialer: any StreamDialer, clock: any HandoffClock = SystemClock(),
        limits: Limits = Limits(), ephemeralKeys: @escaping @Sendable () -> [UInt8] = StateStream.newEphemeralKey
    ) {
        self.identity = identity
        self.groupKey = groupKey
        self.dialer = dialer
        self.clock = clock
        self.limits = limits
        self.ephemeralKeys = ephemeralKeys
    }

    /// Fetches `request` from `source` (the OFFER's sender and its device) at `host:port`,
    /// resuming after drops, and returns the state once its digest matched. `progress` hears the bytes held and the number of resumes after
    /// every DATA frame, on the fetching task. Cancelling the task ends the fetch with `.cancelled`.
    public func fetch(
        from host: String, port: Int, source: StreamSource, request: StateRequest,
        progress: @escaping @Sendable (_ received: Int, _ resumes: Int) -> Void = { _, _ in }
    ) async throws(StreamFailure) -> [UInt8] {
        if let problem = request.problem { throw .invalidRequest(problem) }
        guard request.size <= limits.maximumSize else {
            throw .invalidRequest("the state is \(HandoffError.size(request.size)), over the \(HandoffError.size(limits.maximumSize)) this side fetches")
        }
        var state: [UInt8] = []
        state.reserveCapacity(request.size)
        // Hashed as it arrives, so the check at the end costs nothing more.
        var hasher = SHA256()
        var connections = 0
        var withoutProgress = 0
        while true {
            if Task.isCancelled { throw .cancelled }
            let before = state.count
            let lastReason: String
            do {
                try await attempt(
                    host: host, port: port, source: source, request: request, state: &state, hasher: &hasher, resumes: connections,
                    progress: progress)
                break
            } catch .connectionLost(let reason) {
                lastReason = reason
            }
            if Task.isCancelled { throw .cancelled }
            connections += 1
            withoutProgress = state.count > before ? 0 : withoutProgress + 1
            if withoutProgress >= limits.connectionsWithoutProgress {
                throw .gaveUp(connections: withoutProgress, received: state.count, size: request.size, lastReason: lastReason)
            }
            if withoutProgress > 0, let delay = limits.backoff[safe: withoutProgress - 1] ?? limits.backoff.last, delay > .zero {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw .cancelled
                }
            }
        }
        guard Array(hasher.finalize()) == request.digest else { throw .digestMismatch }
        return state
    }

    /// `StateFetcher(identity:groupKey:dialer:clock:).fetch(from:port:source:request:progress:)` in one call.
    public static func fetch(
        from host: String, port: Int, source: StreamSource, request: StateRequest, identity: StreamIdentity,
        groupKey: GroupKey, dialer: any StreamDialer, clock: any HandoffClock = SystemClock(),
        progress: @escaping @Sendable (_ received: Int, _ resumes: Int) -> Void = { _, _ in }
    ) async throws(StreamFailure) -> [UInt8] {
        try await StateFetcher(identity: identity, groupKey: groupKey, dialer: dialer, clock: clock)
            .fetch(from: host, port: port, source: source, request: request, progress: progress)
    }

    /// One connection: handshake, GET, and DATA into `state` until it is whole or the connection fails.
    private func attempt(
        host: String, port: Int, source: StreamSource, request: StateRequest, state: inout [UInt8], hasher: inout SHA256, resumes: Int,
        progress: @Sendable (Int, Int) -> Void
    ) async throws(StreamFailure) {
        let dialer = dialer
        let connection = try await within(limits.connect, "no connection to \(host):\(port) within \(HandoffError.seconds(limits.connect))") {
            try await dialer.connect(host: host, port: port)
        }
        var machine = StateClientConnection(
            identity: identity, groupKey: groupKey, source: source, request: request, offset: state.count,
            ephemeralKey: ephemeralKeys())
        do throws(StreamFailure) {
            try await write(machine.start(), to: connection)
            while true {
                let started = machine.hasStarted
                let wait = started ? limits.idle : limits.reply
                let chunk = try await within(wait, started ? "no data for \(HandoffError.seconds(wait))" : "no reply within \(HandoffError.seconds(wait))") {
                    try await connection.read()
                }
                guard let chunk else {
                    throw .connectionLost(started ? "the source closed the connection mid-transfer" : "the source closed the connection during the handshake")
                }
                // Each DATA body is hashed and copied to the state where it opened, while it is
                // still in the cache: one pass over the bytes for each, no buffer per frame.
                let outputs = machine.receive(chunk) { body in
                    hasher.update(bufferPointer: body)
                    state.append(contentsOf: body)
                    progress(state.count, resumes)
                }
                for output in outputs {
                    switch output {
                    case .write(let bytes):
                        try await write(bytes, to: connection)
                    case .data(let body):
                        // Not given with a `data` handler; kept for completeness.
                        state.append(contentsOf: body)
                        body.withUnsafeBytes { hasher.update(bufferPointer: $0) }
                        progress(state.count, resumes)
                    case .finished:
                        await connection.close()
                        return
                    case .failed(let failure):
                        throw failure
                    }
                }
            }
        } catch {
            await connection.close()
            throw error
        }
    }

    private func write(_ bytes: [UInt8], to connection: any StreamConnection) async throws(StreamFailure) {
        try await within(limits.reply, "the source took no bytes for \(HandoffError.seconds(limits.reply))") {
            try await connection.write(bytes)
        }
    }

    /// Runs `operation`, racing it against `clock`: a timeout or an error is `.connectionLost`,
    /// a cancelled task `.cancelled`.
    private func within<Value: Sendable>(
        _ timeout: Duration, _ timeoutReason: String, _ operation: @escaping @Sendable () async throws -> Value
    ) async throws(StreamFailure) -> Value {
        let clock = clock
        let deadline = clock.now.advanced(by: timeout)
        let outcome: Raced<Value>
        do {
            outcome = try await withThrowingTaskGroup(of: Raced<Value>.self) { group in
                group.addTask { .value(try await operation()) }
                group.addTask {
                    try await clock.sleep(until: deadline)
                    return .timedOut
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch {
            if Task.isCancelled { throw .cancelled }
            if let failure = error as? StreamFailure { throw failure }
            throw .connectionLost(String(describing: error))
        }
        switch outcome {
        case .value(let value): return value
        case .timedOut: throw .connectionLost(timeoutReason)
        }
    }

    private enum Raced<Value: Sendable>: Sendable {
        case value(Value)
        case timedOut
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
