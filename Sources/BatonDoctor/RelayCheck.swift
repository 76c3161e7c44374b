import FoundationEssentials
import Handoff
import HandoffRelay
import HandoffWire

/// `baton doctor`'s relay check: connect to the broker as Baton does, send one datagram
/// through it from one connection to another, and say how long each took (and whether TLS was
/// used); or say what failed and what to try. A broker that refused the login or the client
/// certificate is told apart from one that could not be reached (RelayCheck+Finding.swift).
package enum RelayCheck {
    package static let name = "relay"

    /// How the round trip went.
    package enum Outcome: Equatable, Sendable {
        /// Connected (subscriptions acknowledged) after `connect` seconds; a datagram went through in `roundTrip`.
        case passed(connect: Double, roundTrip: Double)
        /// Connected, but the datagram did not come back within `seconds`.
        case lost(connect: Double, seconds: Double)
        /// Never connected within `seconds`; the client's last words on why, when it said any.
        case unreachable(reason: String?, seconds: Double)
        /// The broker was reached but refused the login or the certificate, or TLS refused a
        /// certificate on either side: no use waiting.
        case refused(RelayRefusal)
        /// The relay could not even start (a TLS file, the library): the error.
        case failed(String)
    }

    /// Connects two relay transports under `key` (a random one when nil: the broker does not care)
    /// and times one datagram from the first to the second.
    @MainActor
    package static func probe(_ configuration: RelayConfiguration, key: GroupKey?, timeout: Double = 3) async -> Outcome {
        let key = key ?? GroupKey.random()
        // An identity of the check's own: the probe is read by nobody but the other probe.
        let identity = DeviceIdentity.random()
        let (sender, receiver) = (
            SenderID.random(device: identity.publicIdentity.deviceID), SenderID.random(device: identity.publicIdentity.deviceID)
        )
        let a: RelayTransport
        let b: RelayTransport
        do {
            a = try RelayTransport(configuration: configuration, groupKey: key, senderID: sender)
            b = try RelayTransport(configuration: configuration, groupKey: key, senderID: receiver)
        } catch {
            return .failed(error.description)
        }
        enum Event { case status(TransportStatus), datagram([UInt8]), deadline }
        let (events, sink) = AsyncStream<Event>.makeStream()
        a.start(TransportHandler(receive: { _ in }, statusChanged: { sink.yield(.status($0)) }))
        b.start(TransportHandler(receive: { sink.yield(.datagram($0.bytes)) }, statusChanged: { sink.yield(.status($0)) }))
        let started = ContinuousClock.now
        let timer = Task {
            try? await Task.sleep(for: .seconds(timeout))  // wait-ok: the check's deadline, cancelled when it ends
            sink.yield(.deadline)
        }
        // A QUERY under the key: what any peer would send, and read by nobody but the other probe.
        let probe =
            (try? DatagramCodec(keys: GroupKeys(current: key)).encode(
                .query(types: []), identity: identity, senderID: sender, sequence: 1, sentAt: Date())) ?? []
        var connected: Duration?
        var sentAt: ContinuousClock.Instant?
        var lastReason: String?
        var outcome: Outcome?
        for await event in events {
            switch event {
            case .status:
                for path in [a.status, b.status].compactMap({ $0.path(.relay) }) {
                    if case .down(let reason) = path.state { lastReason = reason }
                }
                if let refusal = a.refusal ?? b.refusal {
                    outcome = .refused(refusal)
                    break
                }
                if connected == nil, a.status.path(.relay)?.isUp == true, b.status.path(.relay)?.isUp == true {
                    connected = ContinuousClock.now - started
                    sentAt = ContinuousClock.now
                    a.send(probe)
                }
            case .datagram(let bytes):
                if bytes == probe, let connected, let sentAt {
                    outcome = .passed(connect: seconds(connected), roundTrip: seconds(ContinuousClock.now - sentAt))
                }
            case .deadline:
                outcome = connected.map { .lost(connect: seconds($0), seconds: timeout) }
                    ?? .unreachable(reason: lastReason, seconds: timeout)
            }
            if outcome != nil { break }
        }
        timer.cancel()
        sink.finish()
        await a.close()
        await b.close()
        return outcome ?? .unreachable(reason: lastReason, seconds: timeout)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension DoctorCheck {
    /// The relay, when one is configured: connect, and a datagram through it.
    package static let relay = DoctorCheck(name: RelayCheck.name) { context in
        guard let configuration = context.relay else {
            return DoctorFinding(name: RelayCheck.name, status: .skipped, detail: "no relay configured")
        }
        return RelayCheck.finding(await RelayCheck.probe(configuration, key: context.key), configuration: configuration)
    }
}
