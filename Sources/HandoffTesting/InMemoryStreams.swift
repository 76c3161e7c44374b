import Handoff
import Synchronization
import HandoffWire

/// State-stream servers and connections in memory: a `StreamDialer` for `StateFetcher`, and
/// sources that answer it with `StateServerConnection`s over a `StateShelf`, with faults.
///
/// Nothing runs on a thread of its own: a client's `write` runs the server's machine at once,
/// and a `read` pulls the server's next DATA frame only when the bytes before it were read,
/// as a socket's back-pressure would. A read waits only when the server has nothing to say
/// (it waits for the client, or a fault stalls it) and then returns when the connection is
/// closed or the task cancelled. `parkedCount` says how many calls wait like that, so a test
/// on `ManualClock` knows when the fetcher is really stuck and time may move.
///
/// A connection whose client sends OPEN becomes a continuation stream: the server hands it to
/// its shelf's door, as the TCP server does, and the program behind the door reads what the
/// client writes and writes what the client reads (through the same faults). A continuation
/// stream's reads, at either end, are parked while nothing is on its way.
public final class InMemoryStreams: StreamDialer {
    private struct Registry {
        var servers: [String: InMemoryStreamServer] = [:]
    }

    private let registry = Mutex(Registry())
    let parked = Atomic<Int>(0)

    public init() {}

    /// Serves `shelf` at `host:port` from now on (replacing whatever served there), as
    /// `identity` to the devices `trust` lists.
    @discardableResult
    public func serve(
        host: String, port: Int, identity: StreamIdentity, trust: StreamTrust, shelf: StateShelf,
        ephemeralKeys: @escaping @Sendable () -> [UInt8] = StateStream.newEphemeralKey
    ) -> InMemoryStreamServer {
        let server = InMemoryStreamServer(
            host: host, port: port, identity: identity, trust: trust, shelf: shelf, ephemeralKeys: ephemeralKeys)
        let replaced = registry.withLock { registry in
            defer { registry.servers[Self.address(host, port)] = server }
            return registry.servers[Self.address(host, port)]
        }
        replaced?.stop()
        return server
    }

    /// Serves `shelf` at `host:port` as the one device every holder of `groupKey` is
    /// (`StreamIdentity.sharedByGroupKey`): what a center made with `Membership.sharedDevice(of:)`
    /// fetches from, when the server is given that center's sender id.
    @discardableResult
    public func serve(host: String, port: Int, sharedDeviceOf groupKey: GroupKey, shelf: StateShelf) -> InMemoryStreamServer {
        serve(host: host, port: port, identity: .sharedByGroupKey(groupKey), trust: .sharedByGroupKey(groupKey), shelf: shelf)
    }

    /// How many reads and connects wait for something only a close, a cancel or more client
    /// bytes can bring.
    public var parkedCount: Int { parked.load(ordering: .sequentiallyConsistent) }

    public func connect(host: String, port: Int) async throws -> any StreamConnection {
        guard let server = registry.withLock({ $0.servers[Self.address(host, port)] }) else {
            throw InMemoryStreamError.refused(host: host, port: port)
        }
        let faults = try server.accept()
        if faults.hangConnect {
            parked.add(1, ordering: .sequentiallyConsistent)
            defer { parked.subtract(1, ordering: .sequentiallyConsistent) }
            // A source that never answers: only cancellation ends the wait.
            try await Task.sleep(for: .seconds(365 * 86_400))  // wait-ok: hangs until cancelled
            throw CancellationError()
        }
        return server.open(faults: faults, streams: self)
    }

    static func address(_ host: String, _ port: Int) -> String { "\(host):\(port)" }
}

/// One source in `InMemoryStreams`: its shelf, its faults per connection and what it saw.
public final class InMemoryStreamServer: Sendable {
    public let host: String
    public let port: Int
    let identity: StreamIdentity
    let trust: StreamTrust
    let shelf: StateShelf
    let ephemeralKeys: @Sendable () -> [UInt8]

    private struct Tally {
        var plan: @Sendable (Int) -> StreamFaults = { _ in .none }
        var accepted = 0
        var stopped = false
        var open: [InMemoryStreamConnection] = []
        var closeReasons: [StateServerConnection.CloseReason] = []
        var bytesSent = 0
    }

    private let tally = Mutex(Tally())

    init(
        host: String, port: Int, identity: StreamIdentity, trust: StreamTrust, shelf: StateShelf,
        ephemeralKeys: @escaping @Sendable () -> [UInt8]
    ) {
        self.host = host
        self.port = port
        self.identity = identity
        self.trust = trust
        self.shelf = shelf
        self.ephemeralKeys = ephemeralKeys
    }

    /// Faults from now on, by connection number: the first connection ever made to this server is 1.
    public func setFaults(_ plan: @escaping @Sendable (_ connection: Int) -> StreamFaults) {
        tally.withLock { $0.plan = plan }
    }

    /// The same faults for every connection from now on.
    public func setFaults(_ faults: StreamFaults) { setFaults { _ in faults } }

    /// Connections attempted so far, refused ones included.
    public var connectionCount: Int { tally.withLock { $0.accepted } }
    /// Connections open now.
    public var openCount: Int { tally.withLock { $0.open.count } }
    /// Why the server closed connections, in order.
    public var closeReasons: [StateServerConnection.CloseReason] { tally.withLock { $0.closeReasons } }
    /// Bytes the server wrote on all its connections (delivered or not).
    public var bytesSent: Int { tally.withLock { $0.bytesSent } }

    /// Stops serving: open connections end, later ones are refused.
    public func stop() {
        let open = tally.withLock { tally in
            tally.stopped = true
            defer { tally.open = [] }
            return tally.open
        }
        for connection in open { connection.drop() }
    }

    /// Ends every open connection as a dropped network would, and keeps serving.
    public func dropConnections() {
        let open = tally.withLock { tally in
            defer { tally.open = [] }
            return tally.open
        }
        for connection in open { connection.drop() }
    }

    func accept() throws -> StreamFaults {
        let faults: StreamFaults? = tally.withLock { tally in
            tally.accepted += 1
            guard !tally.stopped else { return nil }
            let faults = tally.plan(tally.accepted)
            return faults.refuse ? nil : faults
        }
        guard let faults else { throw InMemoryStreamError.refused(host: host, port: port) }
        return faults
    }

    func open(faults: StreamFaults, streams: InMemoryStreams) -> InMemoryStreamConnection {
        let machine = StateServerConnection(
            identity: identity, trust: trust, shelf: shelf, ephemeralKey: ephemeralKeys())
        let connection = InMemoryStreamConnection(machine: machine, faults: faults, server: self, streams: streams)
        tally.withLock { $0.open.append(connection) }
        return connection
    }

    func closed(_ connection: InMemoryStreamConnection) {
        tally.withLock { $0.open.removeAll { $0 === connection } }
    }

    func noteClose(_ reason: StateServerConnection.CloseReason) {
        tally.withLock { $0.closeReasons.append(reason) }
    }

    func noteSent(_ count: Int) {
        tally.withLock { $0.bytesSent += count }
    }
}
