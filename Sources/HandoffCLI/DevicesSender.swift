import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffRelay
import HandoffWire

/// Sends statements once, from a command (`baton devices remove`, `baton key --new`), as
/// DEVICES datagrams (docs/PROTOCOL.md, section 17): to the group, the unicast peers and the
/// relay of the network options, three times 250 ms apart, as a sender of its own
/// (`SenderID.random(device:)`, sequences 1, 2, 3…). Running Baton programs on this machine
/// take the statements from the stored list and send them on.
public enum DevicesSender {
    /// The sealed DEVICES datagrams for `statements` under `key`, packed under `limit` bytes,
    /// numbered from `firstSequence`.
    public static func datagrams(
        _ statements: [[UInt8]], digest: [UInt8], identity: DeviceIdentity, under key: GroupKey, senderID: SenderID,
        firstSequence: UInt64, limit: Int, sentAt: Date
    ) -> [[UInt8]] {
        let codec = DatagramCodec(keys: GroupKeys(current: key))
        let messages = DeviceRoster.devicesMessages(statements, digest: digest, limit: limit, sentAt: sentAt)
        return messages.enumerated().compactMap { index, message in
            try? codec.encode(
                message, identity: identity, senderID: senderID, sequence: firstSequence + UInt64(index), sentAt: sentAt)
        }
    }

    /// Sends them `rounds` times, `interval` apart, and closes the sockets; returns where they
    /// went (`239.255.77.88:47788 on eth0 + mqtt://broker`). Errors say what to fix.
    public static func send(
        _ statements: [[UInt8]], digest: [UInt8], identity: DeviceIdentity, under key: GroupKey, options: NetworkOptions,
        rounds: Int = 3, interval: Duration = .milliseconds(250)
    ) async throws -> String {
        let limit = try options.maximumDatagramSize()
        let configuration = try options.multicastConfiguration()
        let transport: MulticastTransport
        do {
            transport = try await MulticastTransport.start(configuration)
        } catch {
            throw CommandFailure("The statements are stored, but could not be sent: \(error.description). Running Baton programs here send them on; `baton doctor` checks the network.")
        }
        transport.start(TransportHandler(receive: { _ in }))
        let senderID = SenderID.random(device: identity.publicIdentity.deviceID)
        let relay = try options.relayConfiguration().flatMap { configuration in
            try? RelayTransport(configuration: configuration, groupKey: key, senderID: senderID)
        }
        relay?.start(TransportHandler(receive: { _ in }))
        var sequence: UInt64 = 1
        for round in 0..<rounds {
            if round > 0 { try? await Task.sleep(for: interval) }
            let batch = datagrams(
                statements, digest: digest, identity: identity, under: key, senderID: senderID, firstSequence: sequence,
                limit: limit, sentAt: Date())
            sequence += UInt64(batch.count)
            for datagram in batch {
                transport.send(datagram)
                relay?.send(datagram)
            }
        }
        var endpoint = transport.endpointDescription
        if let relay {
            // The relay keeps what was sent before the broker answered, and sends it once it does.
            let deadline = ContinuousClock.now + .seconds(3)
            while ContinuousClock.now < deadline, !relay.status.paths.allSatisfy({ $0.state == .up }) {
                try? await Task.sleep(for: .milliseconds(50))
            }
            endpoint += " + " + relay.endpointDescription
            await relay.close()
        }
        await transport.close()
        return endpoint
    }
}
