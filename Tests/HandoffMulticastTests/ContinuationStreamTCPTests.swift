import Foundation
import Handoff
import HandoffTesting
import HandoffWire
import Testing
@testable import HandoffMulticast

/// Continuation streams between two activity centers over TCP on 127.0.0.1 (docs/PROTOCOL.md
/// section 10, "Continuation streams"): the opener, the source's server handing the OPEN to its
/// center through the shelf's door, and the delegate that takes the other end.
@Suite("Continuation streams over TCP on loopback", .serialized, .timeLimit(.minutes(2)))
@MainActor
struct ContinuationStreamTCPTests {
    /// Alice's center at 127.0.0.1, listing Bob; Bob's, listing Alice; Carol's, listing Alice,
    /// whom Alice does not list.
    static func lab() async throws -> (lab: ContinuationLab, a: ActivityCenter, b: ActivityCenter, c: ActivityCenter) {
        let lab = ContinuationLab()
        let a = try await lab.center(ContinuationLab.alice, named: "alice@a", host: "127.0.0.1", listing: [(ContinuationLab.bob, "bob's desktop")])
        let b = try await lab.center(ContinuationLab.bob, named: "bob@b", host: "b.test", listing: [(ContinuationLab.alice, "alice's laptop")])
        let c = try await lab.center(ContinuationLab.carol, named: "carol@c", host: "c.test", listing: [(ContinuationLab.alice, "alice's laptop")])
        return (lab, a, b, c)
    }

    /// Alice publishes an activity that takes streams, and Bob opens one to it: both ends, and
    /// the delegate that took Alice's (kept for the test).
    static func openedPair() async throws
        -> (lab: ContinuationLab, activity: UserActivity, opened: ContinuationStream, accepted: ContinuationStream, taker: StreamTaker)
    {
        let (lab, a, b, _) = try await lab()
        let taker = StreamTaker()
        let activity = try ContinuationLab.publish(on: a, streams: true, delegate: taker)
        let entry = try #require(await ContinuationLab.entry(of: activity, on: b) { $0.record.continuationPort != nil })
        let opened = try await b.openContinuationStream(to: entry)
        #expect(await waitUntil(timeout: .seconds(30)) { taker.streams.count == 1 })
        let accepted = try #require(taker.streams.first)
        return (lab, activity, opened, accepted, taker)
    }

    @Test("Messages go both ways whole and in order, 5 MiB among them; the source's end is named as its list names the opener; a close ends the other's messages")
    func messagesBothWays() async throws {
        let (lab, activity, opened, accepted, _) = try await Self.openedPair()
        #expect(accepted.activityID == activity.activityID && opened.activityID == activity.activityID)
        #expect(accepted.peer.name == "bob's desktop", "the name on Alice's list, not the sender's tag")
        #expect(accepted.peer.device == ContinuationLab.bob.publicIdentity)
        #expect(opened.peer.device == ContinuationLab.alice.publicIdentity)

        let atA = MessageReader(accepted)
        let atB = MessageReader(opened)
        let toA: [[UInt8]] = [Array("hello".utf8), [], StreamTest.state(5 << 20, seed: 5), StreamTest.state(65_534, seed: 6), [7]]
        for message in toA { try await opened.send(message) }
        let toB: [[UInt8]] = [StreamTest.state(70_000, seed: 8), [], Array("bye".utf8)]
        for message in toB { try await accepted.send(message) }
        #expect(await waitUntil(timeout: .seconds(60)) { atA.messages.count == toA.count && atB.messages.count == toB.count })
        #expect(atA.messages == toA)
        #expect(atB.messages == toB)

        // Bob closes: Alice's messages end, and so do Bob's once Alice answers.
        await opened.close()
        #expect(await waitUntil(timeout: .seconds(30)) { atA.end != nil && atB.end != nil })
        #expect(atA.end == "closed" && atB.end == "closed")
        await #expect(throws: HandoffError.continuationStream(peer: "bob's desktop", .closed)) { try await accepted.send([1]) }
        await lab.shutdown()
    }

    @Test("A source that does not read makes the opener's send wait; reading again lets it go on; the source's close ends the opener's messages")
    func slowReader() async throws {
        let (lab, _, opened, accepted, _) = try await Self.openedPair()

        // 16 messages of 256 KiB, 4 MiB in all, to a source that reads none of them: the window
        // (1 MiB) and what the source grants while it joins the first one let a handful through.
        let size = 256 << 10
        let messages = (0..<16).map { StreamTest.state(size, seed: UInt64(100 + $0)) }
        let progress = SendProgress()
        let sender = Task { @MainActor in
            for message in messages {
                progress.started += 1
                try await opened.send(message)
                progress.sent += 1
            }
        }
        #expect(await waitUntil(timeout: .seconds(30)) {
            progress.sent >= 3 && progress.started == progress.sent + 1 && !opened.canSendWithoutWaiting
        }, "sent \(progress.sent)")
        #expect(progress.sent <= (2 << 20) / size, "no more than the window and one message held went out: \(progress.sent)")
        #expect(progress.sent < messages.count)

        let atA = MessageReader(accepted)
        #expect(await waitUntil(timeout: .seconds(60)) { progress.sent == messages.count && atA.messages.count == messages.count })
        try await sender.value
        #expect(atA.messages == messages)

        let atB = MessageReader(opened)
        await accepted.close()
        #expect(await waitUntil(timeout: .seconds(30)) { atA.end != nil && atB.end != nil })
        #expect(atB.end == "closed" && atA.end == "closed")
        await lab.shutdown()
    }

    @Test("sendAtOnce posts small messages from the caller, in order with send's; with the window spent it sends nothing and says so")
    func sendAtOnce() async throws {
        let (lab, _, opened, accepted, _) = try await Self.openedPair()

        // Alice reads nothing yet: one-frame messages of 60,000 bytes go at once while the 1 MiB
        // window lasts (17 of them, 60,002 bytes of credit each), and the 18th does not.
        var went: [[UInt8]] = []
        for seed in 0..<40 {
            let message = StreamTest.state(60_000, seed: UInt64(300 + seed))
            guard opened.sendAtOnce(message) else { break }
            went.append(message)
        }
        #expect(went.count == 17)
        let waiting = StreamTest.state(60_000, seed: 400)
        let sender = Task { try await opened.send(waiting) }
        // Alice reads: everything arrives once, in the order sent, and at once is possible again.
        let atA = MessageReader(accepted)
        #expect(await waitUntil(timeout: .seconds(30)) { atA.messages.count == went.count + 1 })
        try await sender.value
        #expect(opened.sendAtOnce([9]))
        #expect(await waitUntil(timeout: .seconds(30)) { atA.messages.count == went.count + 2 })
        #expect(atA.messages == went + [waiting, [9]])
        await opened.close()
        #expect(await waitUntil(timeout: .seconds(30)) { atA.end == "closed" })
        await lab.shutdown()
    }

    @Test("Refused: an activity without streams (not offered, and refused when asked anyway), one invalidated (not held), an unlisted device (at the handshake)")
    func refusals() async throws {
        let (lab, a, b, c) = try await Self.lab()
        let taker = StreamTaker()

        // Without streams, the record names no port and Bob does not even connect.
        let plain = try ContinuationLab.publish(on: a, streams: false, delegate: taker)
        let plainEntry = try #require(await ContinuationLab.entry(of: plain, on: b))
        #expect(plainEntry.record.continuationPort == nil)
        #expect(await openFailure(from: b, to: plainEntry) == .notSupported)
        // Asked anyway (an entry with the port of Alice's server): Alice's center answers ERROR 04.
        var asked = plainEntry
        asked.record.continuationPort = a.stateStream?.port
        #expect(await openFailure(from: b, to: asked) == .notSupported)

        // Held no more: Bob still has the entry, Alice has invalidated the activity.
        let held = try ContinuationLab.publish(on: a, streams: true, delegate: taker)
        let heldEntry = try #require(await ContinuationLab.entry(of: held, on: b) { $0.record.continuationPort != nil })
        held.invalidate()
        #expect(await openFailure(from: b, to: heldEntry) == .notHeld)

        // Carol lists Alice, but Alice does not list Carol: closed at the handshake.
        let listed = try ContinuationLab.publish(on: a, streams: true, delegate: taker)
        let carolsEntry = try #require(await ContinuationLab.entry(of: listed, on: c) { $0.record.continuationPort != nil })
        #expect(await openFailure(from: c, to: carolsEntry) == .notListed)

        // The delegate heard of none of them; Bob can still open one to the held activity.
        #expect(taker.streams.isEmpty)
        let bobsEntry = try #require(await ContinuationLab.entry(of: listed, on: b) { $0.record.continuationPort != nil })
        #expect(await openFailure(from: b, to: bobsEntry) == nil)
        #expect(await waitUntil(timeout: .seconds(30)) { taker.streams.count == 1 })
        await lab.shutdown()
    }
}

/// How far a sending task got.
@MainActor
final class SendProgress {
    var started = 0
    var sent = 0
}
