import Foundation
import Handoff
import HandoffTesting
import NIOCore
import Synchronization
import Testing
@testable import HandoffMulticast
@testable import HandoffWire

/// The state stream over real sockets on 127.0.0.1: nothing leaves the machine.
@Suite("State stream over TCP on loopback", .serialized, .timeLimit(.minutes(2)))
struct TCPStateStreamTests {
    static let host = "127.0.0.1"

    /// The server's limits, but for a handshake and a write stall that never end a connection of
    /// these tests: the whole suite shares two cores, and a fetch's task may wait there for a
    /// thread for seconds (each of the two has tests of its own).
    static var patient: TCPStateServer.Limits {
        var limits = TCPStateServer.Limits()
        limits.handshakeTimeout = .seconds(600)
        limits.writeStallTimeout = .seconds(600)
        return limits
    }

    func serve(_ state: [UInt8], limits: TCPStateServer.Limits = patient) async throws -> (TCPStateServer, StateRequest) {
        let (shelf, request) = StreamTest.shelf(state)
        let server = try await TCPStateServer.start(
            shelf: shelf, identity: StreamTest.server, trust: StreamTest.trust, host: Self.host, limits: limits)
        return (server, request)
    }

    @Test("1 MiB and 16 MiB arrive byte-exact on one connection each", arguments: [1 << 20, 16 << 20])
    func wholeStates(_ size: Int) async throws {
        let state = StreamTest.state(size, seed: UInt64(size))
        let (server, request) = try await serve(state)
        let last = Mutex((received: 0, resumes: 0))
        let started = ContinuousClock.now
        let fetched = try await StreamTest.fetch(from: Self.host, port: server.port, request: request, dialer: TCPStreamDialer()) { received, resumes in last.withLock { $0 = (received, resumes) } }
        let elapsed = ContinuousClock.now - started
        #expect(fetched == state)
        #expect(last.withLock { $0.received == size && $0.resumes == 0 })
        #expect(await StreamTest.waitUntil { server.statistics.finished == 1 && server.openConnections == 0 }, "\(server.statistics), open \(server.openConnections)")
        #expect(server.statistics.accepted == 1)
        print("state stream on loopback: \(size) bytes in \(elapsed)")
        await server.close()
    }

    @Test("A server that drops the connection mid-transfer is resumed from the bytes held")
    func resumeAfterServerDrop() async throws {
        let state = StreamTest.state(16 << 20, seed: 3)
        let (server, request) = try await serve(state)
        // A small read-ahead and a fixed receive buffer keep most of the state in the server when
        // the first connection pauses: with autotuning (up to net.ipv4.tcp_rmem's 32 MiB here)
        // all 16 MiB could sit in the paused client's socket on a slow run, and the fetch would
        // end on its first connection.
        let dialer = GatedDialer(TCPStreamDialer(readAhead: 64 * 1024, receiveBufferSize: 64 * 1024), pauseAfter: 1 << 20)
        let resumes = Mutex<[Int]>([])
        let fetch = Task {
            try await StreamTest.fetch(from: Self.host, port: server.port, request: request, dialer: dialer) { _, resumed in
                resumes.withLock { $0.append(resumed) }
            }
        }
        #expect(await StreamTest.waitUntil { dialer.gate.isWaiting })
        await server.dropConnections()
        #expect(await StreamTest.waitUntil { server.openConnections == 0 })
        dialer.gate.open()
        let fetched = try await fetch.value
        #expect(fetched == state)
        #expect(resumes.withLock { $0.last } == 1, "exactly one resume")
        // No force-unwrap: a fetch that ended without a resume fails this test, not the whole run.
        #expect(resumes.withLock { $0.contains(0) && ($0.firstIndex(of: 1) ?? -1) > 0 }, "\(resumes.withLock { $0.suffix(4) })")
        #expect(server.statistics.accepted == 2 && server.statistics.finished == 1)
        await server.close()
    }

    @Test("With 8 connections open, a 9th is closed at accept before any byte; a freed place serves again")
    func ninthConnection() async throws {
        var limits = TCPStateServer.Limits()
        limits.handshakeTimeout = .seconds(60)  // the 8 wait in their handshake for the whole test
        let (server, _) = try await serve(StreamTest.state(100), limits: limits)
        let dialer = TCPStreamDialer()
        var open: [any StreamConnection] = []
        for _ in 0..<8 {
            let connection = try await dialer.connect(host: Self.host, port: server.port)
            try await connection.write(StreamTest.clientHello())
            let hello = try await StreamTest.read(120, from: connection)
            #expect(hello.map { Array($0.prefix(4)) } == StateStream.magic)
            open.append(connection)
        }
        #expect(server.openConnections == 8)

        // Closed at accept: the close may reach the dialer before its connection is set up (connect
        // fails), or after (the first read ends); either way no byte comes.
        var answer: [UInt8]?
        if let ninth = try? await dialer.connect(host: Self.host, port: server.port) {
            do {
                answer = try await ninth.read()
            } catch {
                answer = nil  // a reset is as good as an end: no byte came
            }
            await ninth.close()
        }
        #expect(answer == nil)
        #expect(await StreamTest.waitUntil { server.statistics.refused == 1 })
        #expect(server.statistics.accepted == 8)

        await open.removeFirst().close()
        #expect(await StreamTest.waitUntil { server.openConnections == 7 })
        let tenth = try await dialer.connect(host: Self.host, port: server.port)
        try await tenth.write(StreamTest.clientHello())
        #expect(try await StreamTest.read(120, from: tenth)?.count == 120)
        await tenth.close()
        for connection in open { await connection.close() }
        await server.close()
    }

    @Test("A client that stops reading is closed once the server's writes make no progress")
    func stalledReader() async throws {
        var limits = Self.patient
        limits.writeStallTimeout = .milliseconds(300)
        let (server, request) = try await serve(StreamTest.state(16 << 20), limits: limits)
        let connection = try await TCPStreamDialer(readAhead: 64 * 1024).connect(host: Self.host, port: server.port)
        var client = StreamTest.clientMachine(request)
        try await connection.write(client.start())
        let hello = try #require(try await StreamTest.read(120, from: connection))
        guard case .write(let proofAndGet) = client.receive(hello).first else {
            Issue.record("no proof and GET")
            return
        }
        try await connection.write(proofAndGet)
        // It reads nothing more; the socket buffers fill and the server's writes stop completing.
        #expect(await StreamTest.waitUntil(timeout: .seconds(60)) { server.statistics.writeStalls == 1 })
        #expect(await StreamTest.waitUntil { server.openConnections == 0 })
        #expect(server.statistics.finished == 0)
        await connection.close()
        await server.close()
    }

    @Test("Another device answering fails the fetch at the handshake; nobody listening is given up after six tries")
    func failures() async throws {
        let (server, request) = try await serve(StreamTest.state(1000))
        // The client expects another device at this address: the server's signature does not verify.
        let expected = StreamSource(senderID: StreamTest.server.senderID, identity: StreamTest.client.device.publicIdentity)
        await #expect(throws: StreamFailure.authenticationFailed) {
            try await StateFetcher.fetch(
                from: Self.host, port: server.port, source: expected, request: request, identity: StreamTest.client,
                groupKey: StreamTest.key, dialer: TCPStreamDialer(), clock: ManualClock())
        }
        let port = server.port
        await server.close()
        do {
            // No wait between the refused connections: time stands still here (the backoff's
            // waits have a test of their own, in virtual time).
            var limits = StateFetcher.Limits()
            limits.backoff = [.zero]
            _ = try await StreamTest.fetch(from: Self.host, port: port, request: request, dialer: TCPStreamDialer(), limits: limits)
            Issue.record("fetched from a closed server")
        } catch {
            guard case .gaveUp(let connections, 0, 1000, let reason) = error else {
                Issue.record("expected to give up: \(error)")
                return
            }
            #expect(connections == 6)
            #expect(reason.contains("Connection refused"), "\(reason)")
        }
    }
}
