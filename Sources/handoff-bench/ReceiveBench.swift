import Foundation
import Handoff
import HandoffWire
import Synchronization

/// `handoff-bench receive [N] [news] [frame]`: N datagrams of one peer's counter handed to a
/// started `ActivityCenter` as its transport's thread hands them, transport to directory: N
/// repeats of one revision, or with `news`, N new revisions; with `frame`, the center has the
/// news frame `baton` uses.
///
/// `handoff-bench receive N [news] sync` hands each datagram to `ActivityCenter.receive`, which
/// takes it into the directory at once, with no task or timer: the program never waits, so it
/// runs under `valgrind --tool=callgrind` (which fails once the main thread is given up to
/// dispatch), and the inclusive count of `ReceiveBench.receiveEach` divided by N is the
/// instructions of one datagram heard, transport to directory.
@MainActor
enum ReceiveBench {
    /// Hands the center's handler out, sends nowhere.
    final class Wire: ActivityTransport {
        let handler = Mutex<TransportHandler?>(nil)
        var endpointDescription: String { "bench" }
        func start(_ handler: TransportHandler) { self.handler.withLock { $0 = handler } }
        func send(_ bytes: [UInt8]) {}
        func close() async {}
    }

    static func run(count: Int, news: Bool, frame: Bool, sync: Bool = false) async throws {
        let groupKey = GroupKey.random()
        let identity = DeviceIdentity.random()
        // The sender is another process of this device: listed, and not this center's own sender.
        let membership = Membership(identity: identity, groupKey: groupKey)
        let sender = SenderID.random(device: identity.publicIdentity.deviceID)
        let codec = DatagramCodec(keys: GroupKeys(current: groupKey))
        let wire = Wire()
        let peer = PeerInfo(name: "bench@receiver", host: "receiver.local", app: "handoff-bench", appVersion: "0")
        var configuration = ActivityCenter.Configuration(peer: peer)
        if frame { configuration.newsFrame = .milliseconds(250) }
        let center = ActivityCenter(
            registry: ActivityTypeRegistry(declaredTypes: ["dev.baton.counter"]), membership: membership,
            transport: wire, configuration: configuration)
        center.start()
        let handler = try require(wire.handler.withLock { $0 })
        let now = Date()
        var record = ActivityRecord(
            activityID: UUID().uuidString, activityType: "dev.baton.counter", revision: 1, savedAt: now,
            userInfo: ["count": 0], title: "Counter",
            peer: PeerInfo(name: "alice@laptop", host: "laptop.local", app: "baton", appVersion: "1.0.0"))
        var datagrams: [ReceivedDatagram] = []
        for sequence in 1...UInt64(count) {
            if news {
                record.revision = Int(sequence)
                record.userInfo["count"] = .integer(Int(sequence))
            }
            let bytes = try codec.encode(
                .announce(record), identity: identity, senderID: sender, sequence: sequence, sentAt: now)
            datagrams.append(ReceivedDatagram(bytes: bytes, source: "192.0.2.7:47788", path: .multicast))
        }
        let start = ContinuousClock.now
        if sync {
            receiveEach(datagrams, into: center)
            print(String(format: "%d %@ of one counter, each taken in at once: %.2f µs each, %d accepted, directory at revision %d",
                count, news ? "new revisions" : "repeats", Self.micros(ContinuousClock.now - start, per: count),
                center.statistics.accepted, center.directory[record.activityID]?.record.revision ?? -1))
            return
        }
        let accepted = deliver(datagrams, to: handler)
        // What the handler queued for the main actor runs now.
        while center.statistics.accepted < accepted || center.directory[record.activityID]?.record.revision != record.revision {
            await Task.yield()
            if ContinuousClock.now - start > .seconds(30) { break }
        }
        let micros = Self.micros(ContinuousClock.now - start, per: count)
        print(String(format: "%d %@ of one counter%@, transport to directory: %.2f µs each, %d accepted, directory at revision %d",
            count, news ? "new revisions" : "repeats", frame ? " (news frame)" : "", micros, center.statistics.accepted,
            center.directory[record.activityID]?.record.revision ?? -1))
        await center.shutdown()
    }

    /// `elapsed` in microseconds per one of `count`.
    nonisolated static func micros(_ elapsed: Duration, per count: Int) -> Double {
        let (seconds, attoseconds) = elapsed.components
        return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(count)
    }

    /// Each datagram taken into the directory at once.
    @inline(never)
    static func receiveEach(_ datagrams: [ReceivedDatagram], into center: ActivityCenter) {
        for datagram in datagrams { center.receive(datagram) }
    }

    /// Each datagram as a network thread hands it on; how many were accepted.
    @inline(never)
    static func deliver(_ datagrams: [ReceivedDatagram], to handler: TransportHandler) -> Int {
        var accepted = 0
        for datagram in datagrams where handler.deliver(datagram) == .accepted { accepted += 1 }
        return accepted
    }
}

/// `#require` for a plain program.
private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw CocoaError(.featureUnsupported) }
    return value
}
