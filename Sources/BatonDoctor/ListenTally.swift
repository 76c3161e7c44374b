import FoundationEssentials
import Handoff
import HandoffMulticast
import HandoffWire
import BatonFiles

/// What a few seconds of listening heard.
package struct ListenTally: Equatable, Sendable {
    /// Distinct sender ids of accepted datagrams, not counting doctor's own.
    package var peers: Set<SenderID> = []
    /// Datagrams sealed with another key (or altered).
    package var otherKey = 0
    /// Datagrams from devices this machine does not list.
    package var unknownDevice = 0
    /// The addresses (without port) they came from.
    package var unknownDeviceSources: Set<String> = []
    /// The addresses (without port) that version 1 or 2 datagrams came from.
    package var oldProtocolSources: Set<String> = []
    /// Datagrams dropped for any other reason.
    package var otherRejections = 0
    /// Datagrams that could not be read because doctor has no key.
    package var unread = 0
    /// The addresses (without port) that accepted datagrams from others came from.
    package var sources: Set<String> = []
    /// Accepted datagrams that opened with the previous group key: a key change under way, not a fault.
    package var previousKey = 0
    /// Datagrams of this machine's own device (doctor's own, or another Baton program here) that
    /// its list refuses: this device was removed from the group.
    package var ownRefused = 0
    /// Datagrams under a key not held when they came, kept to be tried again once listening ends
    /// (`settle`): a key statement heard meanwhile may give this machine the key they use.
    private var unopened: [(bytes: [UInt8], source: String?)] = []
    /// At most this many are kept to try again; past that they count as under another key at once.
    static let unopenedLimit = 256

    package init() {}

    package static func == (a: ListenTally, b: ListenTally) -> Bool {
        a.peers == b.peers && a.otherKey == b.otherKey && a.unknownDevice == b.unknownDevice
            && a.unknownDeviceSources == b.unknownDeviceSources && a.oldProtocolSources == b.oldProtocolSources
            && a.otherRejections == b.otherRejections && a.unread == b.unread && a.sources == b.sources
            && a.previousKey == b.previousKey && a.ownRefused == b.ownRefused
            && a.unopened.map(\.bytes) == b.unopened.map(\.bytes)
    }

    /// Counts one datagram from the group: `own` is doctor's sender id, `probe` its probe. The
    /// statements of a DEVICES datagram are taken into `membership` (in memory: doctor writes
    /// nothing), as a running Baton takes them, so a key change or a removal heard while
    /// listening counts.
    package mutating func count(
        _ datagram: [UInt8], membership: Membership?, own: SenderID, probe: DoctorProbe, source: String? = nil,
        now: Date
    ) {
        count(datagram, membership: membership, own: own, probe: probe, source: source, now: now, settling: false)
    }

    /// Tries the datagrams that did not open again with the keys held now; those that still do
    /// not open count as under another key.
    package mutating func settle(membership: Membership?, own: SenderID, probe: DoctorProbe, now: Date) {
        let waiting = unopened
        unopened = []
        for datagram in waiting {
            count(datagram.bytes, membership: membership, own: own, probe: probe, source: datagram.source, now: now, settling: true)
        }
    }

    private mutating func count(
        _ datagram: [UInt8], membership: Membership?, own: SenderID, probe: DoctorProbe, source: String?,
        now: Date, settling: Bool
    ) {
        if probe.matches(datagram) { return }
        // The magic is in the clear: an older Baton is named even without a key.
        let header: DatagramHeader
        do {
            header = try DatagramHeader(parsing: datagram)
        } catch .oldProtocol {
            if let source { oldProtocolSources.insert(Self.host(of: source)) }
            return
        } catch {
            guard membership != nil else {
                unread += 1
                return
            }
            otherRejections += 1
            return
        }
        guard let membership else {
            unread += 1
            return
        }
        let ownTag = DeviceTag(membership.identity.publicIdentity.deviceID)
        do {
            let decoded = try DatagramCodec(keys: membership.keys).decode(datagram, now: now) {
                membership.device(for: $0)
            }
            if case .devices(let statements, _) = decoded.message { membership.taking(statements) }
            // A DEVICES datagram opens without a listed sender (its statements are checked one by one).
            guard membership.device(for: header.senderID.tag) != nil else {
                countUnknown(header, ownTag: ownTag, source: source)
                return
            }
            if decoded.header.senderID != own {
                peers.insert(decoded.header.senderID)
                if let source { sources.insert(Self.host(of: source)) }
                if header.keyID == membership.keys.previousID { previousKey += 1 }
            }
        } catch .authenticationFailed {
            if !settling, unopened.count < Self.unopenedLimit {
                unopened.append((datagram, source))
            } else {
                otherKey += 1
            }
        } catch .unknownDevice {
            countUnknown(header, ownTag: ownTag, source: source)
        } catch {
            otherRejections += 1
        }
    }

    private mutating func countUnknown(_ header: DatagramHeader, ownTag: DeviceTag, source: String?) {
        // This machine's own datagrams, refused by its own list: it was removed, and its address is no stranger.
        if header.senderID.tag == ownTag {
            ownRefused += 1
            return
        }
        unknownDevice += 1
        if let source { unknownDeviceSources.insert(Self.host(of: source)) }
    }

    /// `10.77.0.12` from `10.77.0.12:47788`.
    static func host(of source: String) -> String {
        source.lastIndex(of: ":").map { String(source[..<$0]) } ?? source
    }
}
