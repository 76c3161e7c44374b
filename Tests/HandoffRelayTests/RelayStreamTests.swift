import Crypto
import Foundation
import Handoff
import HandoffTesting
import Testing

@testable import HandoffRelay
@testable import HandoffWire

/// The state stream through a private mosquitto on 127.0.0.1.
@Suite(
    "The state stream through the relay",
    .serialized,
    .enabled(if: Broker.isUsable, "needs /usr/sbin/mosquitto (the reason is printed)"),
    .timeLimit(.minutes(2))
)
struct RelayStreamTests {
    static let key = GroupKey(bytes: Array(0...31))!

    /// Bytes that are not all alike, so a shifted or repeated chunk cannot pass.
    static func pattern(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        var pattern = SplitMix64(seed: seed)
        return pattern.bytes(count)
    }

    /// A fetcher as the one device of `key` that `RelayTransport` serves as until it is given
    /// device identities (`StreamIdentity.sharedByGroupKey`).
    static func fetcher(dialer: any StreamDialer, limits: StateFetcher.Limits = .init()) -> StateFetcher {
        StateFetcher(identity: .sharedByGroupKey(key), groupKey: key, dialer: dialer, limits: limits)
    }

    static func shelve(_ state: [UInt8], on shelf: StateShelf, id: String = UUID().uuidString) -> StateRequest {
        let digest = Array(SHA256.hash(data: state))
        shelf.put(activityID: id, revision: 1, digest: digest, bytes: state)
        return StateRequest(activityID: id, revision: 1, digest: digest, size: state.count)
    }

    @Test("StateFetcher fetches 1 MB and 16 MB from a source it reaches only through the broker, digest checked")
    func fetchThroughBroker() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let shelf = StateShelf()
        let source = try await RelayPeer.connected(broker, key: Self.key, shelf: shelf)
        let client = try await RelayPeer.connected(broker, key: Self.key)
        let dialer = RoutingStreamDialer(direct: RoutingStreamDialerTests.Refusing(name: "no TCP here"), relay: client.transport.streamDialer)
        let host = "relay:\(source.transport.senderTopic)"
        for size in [1 << 20, 16 << 20] {
            let state = Self.pattern(size)
            let request = Self.shelve(state, on: shelf)
            let started = ContinuousClock.now
            let fetched = try await Self.fetcher(dialer: dialer).fetch(from: host, port: 1, source: .sharedByGroupKey(Self.key), request: request)
            print("HandoffRelayTests: fetched \(size) bytes through the broker in \(ContinuousClock.now - started)")
            #expect(fetched == state)
        }
        // A revision the source does not keep is refused, not fetched.
        var missing = Self.shelve([1, 2, 3], on: StateShelf())
        missing.revision = 2
        await #expect(throws: StreamFailure.notFound) {
            try await Self.fetcher(dialer: dialer).fetch(from: host, port: 1, source: .sharedByGroupKey(Self.key), request: missing)
        }
        // Another group's key cannot fetch: its topics lead nowhere, so the fetch gives up.
        var limits = StateFetcher.Limits()
        limits.reply = .milliseconds(200)
        limits.connectionsWithoutProgress = 2
        let stranger = try await RelayPeer.connected(broker, key: GroupKey.random())
        let request = Self.shelve([9, 9, 9], on: shelf)
        await #expect(throws: StreamFailure.self) {
            try await Self.fetcher(dialer: stranger.transport.streamDialer, limits: limits)
                .fetch(from: host, port: 1, source: .sharedByGroupKey(Self.key), request: request)
        }
        let counts = try #require(source.transport.streamStatistics)
        #expect(counts.finished == 2 && counts.refusedByProtocol == 1)
        for peer in [source, client, stranger] { await peer.transport.close() }
    }

    @Test("Connections beyond 8 are ended before any byte; one that sends nothing is closed after 1 s")
    func serverLimits() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let source = try await RelayPeer.connected(broker, key: Self.key, shelf: StateShelf())
        let server = try #require(source.transport.stateServer)
        let client = try await RelayPeer.connected(broker, key: Self.key)
        let dialer = client.transport.streamDialer
        // The 8 first: their deadline out of reach while the 9th comes (under the whole suite,
        // 9 connects could take longer than 1 s, and the first would end before the 9th).
        var patient = RelayStateServer.Limits()
        patient.handshakeTimeout = .seconds(600)
        server.setLimits(patient)
        func stalledConnection() async throws -> any StreamConnection {
            let connection = try await dialer.connect(host: "relay:\(source.transport.senderTopic)", port: 1)
            try await connection.write(Array("BTNS".utf8))  // the start of a ClientHello, then nothing
            return connection
        }
        func end(of connection: any StreamConnection) async -> String? {
            await within(.seconds(30)) { () -> String in
                do {
                    return try await connection.read().map { "\($0.count) bytes" } ?? "end"
                } catch {
                    return "\(error)"
                }
            }
        }
        var connections: [any StreamConnection] = []
        for _ in 0..<8 { connections.append(try await stalledConnection()) }
        #expect(await waitUntil(timeout: .seconds(30)) { server.statistics.accepted == 8 })
        let ninth = try await stalledConnection()
        #expect(await end(of: ninth) == "end", "the ninth is ended at once")
        #expect(server.statistics.accepted == 8 && server.statistics.refused == 1 && server.handshaking == 8)
        await ninth.close()
        for connection in connections { await connection.close() }
        #expect(await waitUntil(timeout: .seconds(30)) { server.handshaking == 0 })

        // Alone, with the usual 1 s: one that sends nothing more is ended at the deadline.
        server.setLimits(RelayStateServer.Limits())
        let silent = try await stalledConnection()
        #expect(await end(of: silent) == "end", "the source ends the silent connection")
        #expect(server.statistics.handshakeTimeouts == 1)
        await silent.close()
        await source.transport.close()
        await client.transport.close()
    }

    @Test("A subscriber to every topic sees no activity type, title or text of what goes through the broker")
    func brokerSeesNoPlaintext() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let everything = try await Observer(broker, topics: ["#"])
        let shelf = StateShelf()
        let source = try await RelayPeer.connected(broker, key: Self.key, shelf: shelf)
        let client = try await RelayPeer.connected(broker, key: Self.key)

        let secrets = ["dev.baton.editing", "Editing secret-plans.txt", "the launch is on thursday"]
        let peer = PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0")
        let record = ActivityRecord(
            activityID: UUID().uuidString, activityType: secrets[0], revision: 1, savedAt: Date(),
            userInfo: ["text": .string(secrets[2] + String(repeating: " and more", count: 200)), "cursorLine": 0, "cursorColumn": 0],
            title: secrets[1], peer: peer)
        let codec = DatagramCodec(keys: GroupKeys(current: Self.key))
        let announce = try codec.encode(
            .announce(record), identity: source.device, senderID: source.sender, sequence: 1, sentAt: Date())
        source.transport.send(announce)
        #expect(await client.heardBytes(announce))
        let state = DatagramCodec.plaintext(.announce(record), sentAt: record.savedAt)
        let request = Self.shelve(state, on: shelf, id: record.activityID)
        let fetched = try await Self.fetcher(dialer: client.transport.streamDialer)
            .fetch(from: "relay:\(source.transport.senderTopic)", port: 1, source: .sharedByGroupKey(Self.key), request: request)
        #expect(fetched == state)
        #expect(String(decoding: state, as: UTF8.self).contains(secrets[2]), "the state does hold the text in the clear")

        let seen = try #require(await everything.settled())
        #expect(seen.contains { $0.payload == announce })
        #expect(seen.contains { $0.topic.hasSuffix("/s") && $0.payload.count > 100 }, "the stream went through the broker")
        for message in seen {
            let bytes = Array(message.topic.utf8) + message.payload
            for secret in secrets {
                #expect(!Self.contains(bytes, Array(secret.utf8)), "\(secret) in \(message.topic)")
                #expect(!Self.contains(bytes, Array(secret.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
            }
        }
        everything.stop()
        await source.transport.close()
        await client.transport.close()
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
