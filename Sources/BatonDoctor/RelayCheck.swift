import Foundation
import Handoff
import HandoffRelay
import HandoffWire

/// `baton doctor`'s relay check: connect to the broker as Baton does, send one datagram
/// through it from one connection to another, and say how long each took (and whether TLS was
/// used); or say what failed and what to try.
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

    /// The finding for `outcome` against `configuration`.
    package static func finding(_ outcome: Outcome, configuration: RelayConfiguration) -> DoctorFinding {
        let url = configuration.url
        let tls = configuration.scheme == .mqtts
            ? " over TLS" + (configuration.caFile.map { " (CA \($0))" } ?? " (the system's CAs)") : ""
        switch outcome {
        case .passed(let connect, let roundTrip):
            return DoctorFinding(
                name: name, status: .ok,
                detail: "\(url) connected\(tls) in \(milliseconds(connect)) ms; a datagram went through it in \(milliseconds(roundTrip)) ms")
        case .lost(let connect, let seconds):
            return DoctorFinding(
                name: name, status: .problem,
                detail: "\(url) connected\(tls) in \(milliseconds(connect)) ms, but a datagram sent through it did not come back within \(trimmed(seconds)) s",
                fix: "the broker refuses Baton's topics or drops its messages: allow publishing and subscribing under `baton/#` (mosquitto: an `acl_file`)")
        case .unreachable(let reason, let seconds):
            let why = reason.map { ": \($0)" } ?? ""
            let fix: String
            if let reason, reason.contains("TLS") || reason.contains("certificate") {
                fix = "the broker's certificate is not trusted: give its CA with `--relay-ca FILE`, or check the host name in \(url)"
            } else if configuration.scheme == .mqtt {
                fix = "check that the broker runs and listens beyond localhost (mosquitto 2: `listener \(configuration.port) 0.0.0.0` "
                    + "and `allow_anonymous true`, or a password), and that TCP \(configuration.port) is open on the way"
            } else {
                fix = "check that the broker runs with TLS on port \(configuration.port) and that TCP \(configuration.port) is open on the way"
            }
            return DoctorFinding(
                name: name, status: .problem, detail: "could not connect to \(url) within \(trimmed(seconds)) s\(why)", fix: fix)
        case .failed(let message):
            return DoctorFinding(name: name, status: .problem, detail: message, fix: "check --relay and --relay-ca")
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `12` ms, or `0.4` ms below 10 ms.
    private static func milliseconds(_ seconds: Double) -> String {
        let ms = seconds * 1000
        return ms < 10 ? String(format: "%.1f", ms) : String(Int(ms.rounded()))
    }

    private static func trimmed(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
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
