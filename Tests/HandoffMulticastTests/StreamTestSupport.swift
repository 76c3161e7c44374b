import Crypto
import Foundation
import Handoff
import Synchronization
import HandoffTesting
@testable import HandoffWire

/// Shared values and helpers for the state-stream tests over NIO.
enum StreamTest {
    static let key = GroupKey(bytes: Array(0..<32))!
    static let otherKey = GroupKey(bytes: Array(100..<132))!
    static let activityID = "6F1C3B1E-3E0B-4C7A-9E43-2B7D8B1F0A11"
    /// The fetching device and the serving one; the server lists the client.
    static let client = StreamIdentity(device: DeviceIdentity(seed: Array(0x00...0x1F))!, instance: Array(0xB0...0xB7))
    static let server = StreamIdentity(device: DeviceIdentity(seed: Array(0x20...0x3F))!, instance: Array(0xB8...0xBF))
    static let trust = StreamTrust(groupKeys: [key], devices: [client.device.publicIdentity])

    /// A client machine of `client` fetching `request` from `server`.
    static func clientMachine(_ request: StateRequest) -> StateClientConnection {
        StateClientConnection(identity: client, groupKey: key, source: server.asSource, request: request, offset: 0)
    }

    /// A ClientHello of `client` with the key id of `key` and a fresh ephemeral key.
    static func clientHello() -> [UInt8] {
        StateStreamHandshake.ClientHello(
            keyID: StateStreamHandshake.keyID(of: key), senderID: client.senderID,
            ephemeralKey: StateStreamHandshake.publicKey(ofEphemeral: StateStream.newEphemeralKey())
        ).bytes
    }

    /// `StateFetcher.fetch` as `client` from `server`, following an OFFER opened with `groupKey`.
    ///
    /// Its timers run on `clock`, by default one that never moves: the whole test suite shares
    /// two cores, and a fetch's task may wait seconds for a thread, so on the real clock a connect
    /// or a reply could time out and the fetch resume on its own (a whole-state test failed so,
    /// its first connection given up after 2 s). With time standing still, a resume comes only
    /// from what a test does; the fetcher's timing has tests of its own, in virtual time.
    static func fetch(
        from host: String, port: Int, request: StateRequest, groupKey: GroupKey = key, dialer: any StreamDialer,
        clock: any HandoffClock = ManualClock(), limits: StateFetcher.Limits = .init(),
        progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws(StreamFailure) -> [UInt8] {
        try await StateFetcher(identity: client, groupKey: groupKey, dialer: dialer, clock: clock, limits: limits)
            .fetch(from: host, port: port, source: server.asSource, request: request, progress: progress)
    }

    /// Bytes that are not all alike, so a cut, shifted or swapped range cannot compare equal.
    static func state(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return generator.bytes(count)
    }

    /// A shelf holding `state` as revision 3, and the request for it.
    static func shelf(_ state: [UInt8]) -> (StateShelf, StateRequest) {
        let shelf = StateShelf()
        let digest = Array(SHA256.hash(data: state))
        shelf.put(activityID: activityID, revision: 3, digest: digest, bytes: state)
        return (shelf, StateRequest(activityID: activityID, revision: 3, digest: digest, size: state.count))
    }

    /// Waits (in real time, with a deadline) until `condition` holds.
    static func waitUntil(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(2))  // wait-ok: polls a condition until its deadline
        }
        return true
    }

    /// Reads from `connection` until `count` bytes arrived; nil when the stream ended first.
    static func read(_ count: Int, from connection: any StreamConnection) async throws -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count {
            guard let chunk = try await connection.read() else { return nil }
            bytes += chunk
        }
        return bytes
    }
}

/// A one-way gate: `wait()` returns once `open()` was called, or throws when the task is cancelled.
final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let waiting = Atomic<Bool>(false)

    init() { (stream, continuation) = AsyncStream.makeStream() }

    var isWaiting: Bool { waiting.load(ordering: .sequentiallyConsistent) }

    func open() { continuation.finish() }

    func wait() async throws {
        waiting.store(true, ordering: .sequentiallyConsistent)
        for await _ in stream {}
        try Task.checkCancellation()
    }
}

/// A dialer whose first connection stops handing bytes to the fetcher after `pauseAfter`
/// bytes until its gate opens, so a test can act while a transfer is in flight.
final class GatedDialer: StreamDialer {
    let inner: any StreamDialer
    let pauseAfter: Int
    let gate = Gate()
    private let dialled = Atomic<Int>(0)

    init(_ inner: any StreamDialer, pauseAfter: Int) {
        self.inner = inner
        self.pauseAfter = pauseAfter
    }

    func connect(host: String, port: Int) async throws -> any StreamConnection {
        let connection = try await inner.connect(host: host, port: port)
        let number = dialled.add(1, ordering: .sequentiallyConsistent).newValue
        return number == 1 ? GatedConnection(inner: connection, pauseAfter: pauseAfter, gate: gate) : connection
    }
}

final class GatedConnection: StreamConnection {
    let inner: any StreamConnection
    let pauseAfter: Int
    let gate: Gate
    private let count = Atomic<Int>(0)

    init(inner: any StreamConnection, pauseAfter: Int, gate: Gate) {
        self.inner = inner
        self.pauseAfter = pauseAfter
        self.gate = gate
    }

    func write(_ bytes: [UInt8]) async throws { try await inner.write(bytes) }

    func read() async throws -> [UInt8]? {
        if count.load(ordering: .sequentiallyConsistent) >= pauseAfter { try await gate.wait() }
        let bytes = try await inner.read()
        count.add(bytes?.count ?? 0, ordering: .sequentiallyConsistent)
        return bytes
    }

    func close() async { await inner.close() }
}
