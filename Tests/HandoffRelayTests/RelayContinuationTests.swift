import Foundation
import Handoff
import HandoffTesting
import Testing

@testable import HandoffRelay
@testable import HandoffWire

/// Continuation streams between two centers that share nothing but a private mosquitto on
/// 127.0.0.1 (docs/PROTOCOL.md section 16, "The state stream through the relay").
@Suite(
    "Continuation streams through the relay",
    .serialized,
    .enabled(if: Broker.isUsable, "needs /usr/sbin/mosquitto (the reason is printed)"),
    .timeLimit(.minutes(2))
)
@MainActor
struct RelayContinuationTests {
    @Test("Opened through the broker: messages both ways, 3 MiB among them, then a close ends the other's messages")
    func openSendClose() async throws {
        let broker = try await Broker.start()
        defer { broker.stop() }
        let (a, relayA) = try RelayCenterTests.center(broker, name: "alice@site-a")
        let (b, _) = try RelayCenterTests.center(broker, name: "bob@site-b")
        #expect(await RelayCenterTests.wait(b) { b.transport.status.path(.relay)?.isUp == true })

        let taker = StreamTaker()
        let activity = UserActivity(activityType: "dev.baton.editing", center: a)
        activity.userInfo = ["text": "far", "cursorLine": 0, "cursorColumn": 0, "fileName": "far.txt"]
        activity.supportsContinuationStreams = true
        activity.delegate = taker
        try activity.becomeCurrent()
        let id = activity.activityID
        #expect(await RelayCenterTests.wait(b) { b.nearby.contains { $0.id == id && $0.record.continuationPort != nil } })
        let entry = try #require(b.nearby.first { $0.id == id })
        #expect(entry.source == "relay:\(relayA.senderTopic)")

        let opened = try await b.openContinuationStream(to: entry)
        #expect(await waitUntil(timeout: .seconds(30)) { taker.streams.count == 1 })
        let accepted = try #require(taker.streams.first)
        // Open, the stream left the connections under the handshake's deadline (section 16).
        // (An earlier try of the opener, if any, leaves once its end arrives.)
        #expect(await waitUntil(timeout: .seconds(30)) { relayA.stateServer?.handshaking == 0 })
        let atA = MessageReader(accepted)
        let atB = MessageReader(opened)

        let big = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 13) }
        let toA: [[UInt8]] = [Array("hello".utf8), [], big, [9]]
        for message in toA { try await opened.send(message) }
        let toB: [[UInt8]] = [Array("hi from A".utf8), Array(repeating: 0xA5, count: 100_000)]
        for message in toB { try await accepted.send(message) }
        #expect(await waitUntil(timeout: .seconds(60)) { atA.messages.count == toA.count && atB.messages.count == toB.count })
        #expect(atA.messages == toA)
        #expect(atB.messages == toB)
        #expect(relayA.streamStatistics?.handshakeTimeouts == 0)

        await opened.close()
        #expect(await waitUntil(timeout: .seconds(30)) { atA.end != nil && atB.end != nil })
        #expect(atA.end == "closed" && atB.end == "closed")
        await a.shutdown()
        await b.shutdown()
    }
}
