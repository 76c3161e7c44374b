import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffRelay
import HandoffWire

/// One transport's worth of doctoring: the self-test and the listening share its socket.
package struct MulticastRun: Sendable {
    /// `.unavailable(reason)` when the transport's multicast path is down, else nil.
    static func unavailable(_ transport: MulticastTransport) -> SelfTestOutcome? {
        guard case .down(let reason) = transport.status.path(.multicast)?.state else { return nil }
        return .unavailable(reason: reason)
    }

    package var selfTest: SelfTestOutcome

    /// What got through the firewall: the probe, or any datagram from another machine.
    package var evidence: FirewallCheck.Evidence {
        let returned = if case .returned = selfTest { true } else { false }
        let heard =
            tally.map {
                !$0.peers.isEmpty || !$0.oldProtocolSources.isEmpty
                    || $0.otherKey + $0.unknownDevice + $0.otherRejections + $0.unread > 0
            } ?? false
        return FirewallCheck.Evidence(probeReturned: returned, heardOthers: heard)
    }

    /// The interface the transport joined, when it started.
    package var interface: String?
    /// What listening heard, or nil when it could not listen.
    package var tally: ListenTally?
    /// Why listening did not run, when it did not.
    package var listenSkipped: String?
    /// Whether a removal of this machine was heard while listening (its list, read before, did not hold it).
    package var removedWhileListening = false

    private enum Event: Sendable {
        case datagram([UInt8], source: String?)
        case sendFailed(String)
        case probeDeadline
        case listenDeadline
    }

    static func perform(
        configuration: MulticastConfiguration, membership: Membership?, listenSeconds: Double, probeTimeout: Double
    ) async -> MulticastRun {
        let transport: MulticastTransport
        do {
            transport = try await MulticastTransport.start(configuration)
        } catch {
            return MulticastRun(
                selfTest: .startFailed(error.description), interface: nil, tally: nil,
                listenSkipped: "the group could not be joined")
        }
        let (events, sink) = AsyncStream<Event>.makeStream()
        transport.start(TransportHandler(
            receive: { sink.yield(.datagram($0.bytes, source: $0.source)) },
            sendFailed: { error in
                if case .sendFailed(_, let reason) = error { sink.yield(.sendFailed(reason)) } else { sink.yield(.sendFailed(error.description)) }
            }))
        let probe = DoctorProbe()
        let own = membership.map { SenderID.random(device: $0.identity.publicIdentity.deviceID) } ?? SenderID.random()
        let membershipRemovedAtStart = membership?.roster.ownRemoval != nil
        let started = ContinuousClock.now
        let timers = [
            Task { try? await Task.sleep(for: .seconds(probeTimeout)); sink.yield(.probeDeadline) },
            Task { try? await Task.sleep(for: .seconds(listenSeconds)); sink.yield(.listenDeadline) },
        ]
        transport.send(probe.bytes)
        // A QUERY with no types: every peer that offers something answers at once, instead of at its next repeat.
        if let membership,
            let query = try? DatagramCodec(keys: membership.keys).encode(
                .query(types: nil), identity: membership.identity, senderID: own, sequence: 1, sentAt: Date())
        {
            transport.send(query)
            // What this machine keeps: a peer whose statements differ answers with its own at
            // once, so a key change or a removal this machine missed is heard while listening.
            let roster = membership.roster
            if !roster.statements.isEmpty {
                for (index, message) in roster.devicesMessages(sentAt: Date()).enumerated() {
                    if let bytes = try? DatagramCodec(keys: membership.keys).encode(
                        message, identity: membership.identity, senderID: own, sequence: UInt64(2 + index), sentAt: Date())
                    {
                        transport.send(bytes)
                    }
                }
            }
        }
        // Started without multicast: the probe cannot come back, but listening by unicast goes on.
        var outcome: SelfTestOutcome? = Self.unavailable(transport)
        var tally = ListenTally()
        var listened = false
        for await event in events {
            switch event {
            case .datagram(let bytes, let source):
                if outcome == nil, probe.matches(bytes) {
                    let elapsed = ContinuousClock.now - started
                    outcome = .returned(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                }
                tally.count(bytes, membership: membership, own: own, probe: probe, source: source, now: Date())
            case .sendFailed(let reason):
                if outcome == nil { outcome = .sendFailed(reason) }
            case .probeDeadline:
                if outcome == nil { outcome = .lost(seconds: probeTimeout) }
            case .listenDeadline:
                listened = true
            }
            if listened, outcome != nil { break }
        }
        timers.forEach { $0.cancel() }
        sink.finish()
        // A key statement taken while listening may open what did not open when it came.
        tally.settle(membership: membership, own: own, probe: probe, now: Date())
        let removedWhileListening = !membershipRemovedAtStart && membership?.roster.ownRemoval != nil
        // A send error (a firewall) takes multicast down without a failed send: say why the probe was lost.
        if case .lost = outcome, let down = Self.unavailable(transport) { outcome = down }
        let interface = transport.interfaceName
        await transport.close()
        return MulticastRun(
            selfTest: outcome ?? .lost(seconds: probeTimeout), interface: interface, tally: tally, listenSkipped: nil,
            removedWhileListening: removedWhileListening)
    }
}
