import Foundation
import Handoff
import Testing

@testable import HandoffRelay
@testable import HandoffWire

/// Each test starts its own mosquitto on 127.0.0.1 and talks to nothing else.
@Suite(
    "RelayTransport through a private mosquitto",
    .serialized,
    .enabled(if: Broker.isUsable, "needs /usr/sbin/mosquitto (the reason is printed)"),
    .timeLimit(.minutes(1))
)
struct RelayTransportTests {
    static let key = GroupKey(bytes: Array(0...31))!

    @Test("Two peers of one key exchange datagrams as sent; a peer of another key hears none of them")
    func exchange() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let a = try await RelayPeer.connected(broker, key: Self.key)
        let b = try await RelayPeer.connected(broker, key: Self.key)
        let otherKey = GroupKey.random()
        let c = try await RelayPeer.connected(broker, key: otherKey)
        let d = try await RelayPeer.connected(broker, key: otherKey)
        #expect(a.transport.status.path(.relay) == TransportStatus.Path(kind: .relay, state: .up, detail: broker.url))
        #expect(a.transport.endpointDescription == broker.url)

        let query = a.datagram(.query, sequence: 1)
        let announce = a.datagram(.announce, sequence: 2)
        a.transport.send(query)
        a.transport.send(announce)
        #expect(await b.heardBytes(query))
        #expect(await b.heardBytes(announce))
        let fromA = b.heard.items.filter { $0.bytes == query }
        #expect(fromA.first?.source == "relay:\(a.transport.senderTopic)" && fromA.first?.path == .relay)
        // The other group's own traffic arrives; A's never does (it is on other topics).
        let other = d.datagram(.query, sequence: 1)
        d.transport.send(other)
        #expect(await c.heardBytes(other))
        #expect(!c.heard.items.contains { $0.bytes == query || $0.bytes == announce })
        // A peer does not hear itself back.
        #expect(!a.heard.items.contains { $0.bytes == query })
        for peer in [a, b, c, d] { await peer.transport.close() }
    }

    @Test("stop() right after 500 QoS 1 messages: all of them reach the broker first (libmosquitto queues past 64 in flight, and a DISCONNECT does not wait for that queue)")
    func stopSendsWhatWasHandedOver() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let topic = "baton-test/flush/\(UUID().uuidString)"
        let observer = try await Observer(broker, topics: [topic])
        defer { observer.stop() }
        let client = try MQTTClient(configuration: try RelayConfiguration(broker.url))
        let connected = Collector<Bool>()
        client.start(MQTTClient.Handlers(stateChanged: { if $0 == .connected { connected.append(true) } }))
        #expect(await connected.wait(until: { !$0.isEmpty }))
        let payload = [UInt8](repeating: 0x42, count: 2_000)
        for index in 0..<500 {
            client.publish(topic, payload + [UInt8(index % 256), UInt8(index / 256)], qos: 1)
        }
        client.stop()
        #expect(await observer.messages.wait(until: { $0.filter { $0.topic == topic }.count == 500 }))
        let last = observer.messages.items.last { $0.topic == topic }
        #expect(last?.payload.suffix(2) == [UInt8(499 % 256), UInt8(499 / 256)])
    }

    @Test("A peer that connects later hears the kept ANNOUNCE at once; WITHDRAW clears it, and so does close()")
    func retainedActivity() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let a = try await RelayPeer.connected(broker, key: Self.key)
        let announce = a.datagram(.announce, sequence: 1)
        a.transport.send(announce)
        let activityTopic = a.transport.topics.activity(a.transport.senderTopic)
        let watcher = try await Observer(broker, topics: [activityTopic])
        #expect(await watcher.messages.wait { $0.contains { $0.payload == announce } })

        let late = try await RelayPeer.connected(broker, key: Self.key)
        #expect(await late.heardBytes(announce))

        let withdraw = a.datagram(.withdraw, sequence: 2)
        a.transport.send(withdraw)
        #expect(await late.heardBytes(withdraw))
        #expect(await watcher.messages.wait { $0.contains { $0.topic == activityTopic && $0.payload.isEmpty } })
        let afterWithdraw = try await Observer(broker, topics: [a.transport.topics.activities])
        let kept = try #require(await afterWithdraw.settled())
        #expect(!kept.contains { $0.topic == activityTopic }, "a withdrawn activity is no longer kept")

        // Offered again, then a clean close: the broker keeps nothing of A.
        let offer = a.datagram(.offer, sequence: 3)
        a.transport.send(offer)
        #expect(await late.heardBytes(offer))
        await a.transport.close()
        #expect(await watcher.messages.wait { $0.last.map { $0.topic == activityTopic && $0.payload.isEmpty } == true })
        let afterClose = try await Observer(broker, topics: [a.transport.topics.activities])
        #expect(try #require(await afterClose.settled()).contains { $0.topic == activityTopic } == false)
        a.transport.send(a.datagram(.query, sequence: 4))  // after close: refused, nothing crashes
        for observer in [watcher, afterWithdraw, afterClose] { observer.stop() }
        await late.transport.close()
    }

    @Test("A peer cut off without a DISCONNECT has its kept activity cleared by its will")
    func willClearsActivity() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let a = try await RelayPeer.connected(broker, key: Self.key, keepalive: 5)
        let announce = a.datagram(.announce, sequence: 1)
        a.transport.send(announce)
        let activityTopic = a.transport.topics.activity(a.transport.senderTopic)
        let watcher = try await Observer(broker, topics: [activityTopic])
        #expect(await watcher.messages.wait { $0.contains { $0.payload == announce } })

        let cut = ContinuousClock.now
        a.transport.client.cutConnectionForTesting()
        // Within the keepalive (5 s) plus half of it, the broker's limit for a silent client.
        #expect(await watcher.messages.wait(within: .seconds(7.5)) { $0.last?.payload.isEmpty == true })
        print("HandoffRelayTests: will published \(ContinuousClock.now - cut) after the cut")
        let later = try await Observer(broker, topics: [a.transport.topics.activities])
        #expect(try #require(await later.settled()).contains { $0.topic == activityTopic } == false)
        // A reports the loss, reconnects by itself, and is heard again.
        #expect(await a.statuses.wait { $0.contains { if case .down = $0 { true } else { false } } })
        #expect(await a.statuses.wait { $0.last == .up })
        watcher.stop()
        later.stop()
        await a.transport.close()
    }

    @Test("The broker killed and restarted: down, then up within seconds, and datagrams flow again")
    func brokerRestart() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let a = try await RelayPeer.connected(broker, key: Self.key)
        let b = try await RelayPeer.connected(broker, key: Self.key)
        broker.kill()
        #expect(await a.statuses.wait { if case .down(let reason)? = $0.last { !reason.isEmpty } else { false } })
        a.transport.send(a.datagram(.query, sequence: 1))  // dropped while down, nothing closes
        if case .down(let reason)? = a.statuses.items.last { print("HandoffRelayTests: relay down: \(reason)") }

        let restarted = ContinuousClock.now
        try await broker.run()
        #expect(await a.statuses.wait(within: .seconds(5)) { $0.last == .up })
        #expect(await b.statuses.wait(within: .seconds(5)) { $0.last == .up })
        print("HandoffRelayTests: both peers up again \(ContinuousClock.now - restarted) after the broker restarted")
        // Subscriptions were made again: a datagram sent now arrives.
        let again = a.datagram(.query, sequence: 2)
        a.transport.send(again)
        #expect(await b.heardBytes(again))
        await a.transport.close()
        await b.transport.close()
    }

    @Test("Fifty datagrams through the local broker each arrive, one at a time (the time each took is printed)")
    func roundTrip() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let a = try await RelayPeer.connected(broker, key: Self.key)
        let b = try await RelayPeer.connected(broker, key: Self.key)
        var times: [Duration] = []
        for sequence in 1...50 {
            let datagram = a.datagram(.query, sequence: UInt64(sequence))
            let sent = ContinuousClock.now
            a.transport.send(datagram)
            #expect(await b.heardBytes(datagram))
            times.append(ContinuousClock.now - sent)
        }
        times.sort()
        // A figure, not a target: how fast is for the benchmarks (bench/relay_bench.py), not for a
        // unit test on a machine busy with the whole suite.
        print("HandoffRelayTests: one-way A → broker → B, 50 datagrams: median \(times[25]), max \(times[49])")
        await a.transport.close()
        await b.transport.close()
    }
}
