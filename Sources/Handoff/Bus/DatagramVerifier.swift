import FoundationEssentials
import HandoffWire

/// The checks of docs/PROTOCOL.md section 7 that look at one datagram alone, in the page's
/// order: the header, this peer's own sender id, the group key, the listed device, opening,
/// a datagram already accepted (step 9, before the signature, so a datagram heard twice is
/// verified once), the device's signature, decoding and the clock. It keeps nothing: what it
/// needs of the replay window comes in as `alreadyAccepted`, and what it finds goes out as a
/// `Verdict`. The window itself (step 15) and who owns an activity (step 16) are the gate's.
struct DatagramVerifier: Sendable {
    /// What one datagram came to.
    enum Verdict: Sendable {
        /// It opened, carries a listed device's valid signature (or is a DEVICES datagram of a
        /// device not listed) and decodes within the clock's bounds.
        case verified(VerifiedDatagram)
        /// This peer's own datagram, looped back: counted, not a rejection.
        case own
        /// A sequence already accepted from its sender (step 9): counted, not a rejection.
        case duplicate
        /// Refused, for the first check it failed.
        case rejected(RejectionReason)
    }

    let membership: Membership
    let ownSender: SenderID
    let allowedClockSkew: TimeInterval

    /// Verifies `bytes` at `now`; `alreadyAccepted(sender, sequence)` says whether the window
    /// holds that sequence as accepted.
    func verify(
        _ bytes: [UInt8], now: Date, alreadyAccepted: (SenderID, UInt64) -> Bool
    ) -> Verdict {
        do throws(RejectionReason) {
            let header = try DatagramHeader(parsing: bytes)
            if header.senderID == ownSender { return .own }
            let codec = membership.codec(allowedClockSkew: allowedClockSkew)
            // Step 5: another group key is said as such (a machine to pair), listed device or not.
            guard codec.keys.key(for: header.keyID) != nil else { throw .authenticationFailed }
            // Step 6: a device not listed is not heard, but for the statements it brings.
            let device = membership.device(for: header.senderID.tag)
            guard device != nil || header.kind == .devices else { throw .unknownDevice }
            let opened = try codec.open(bytes, header: header)
            if alreadyAccepted(header.senderID, header.sequence) { return .duplicate }
            if let device { try opened.verify(by: device) }
            let decoded = try codec.decode(opened, now: now)
            return .verified(VerifiedDatagram(header: header, message: decoded.message, listed: device != nil))
        } catch {
            return .rejected(error)
        }
    }
}

/// A datagram that passed `DatagramVerifier`: its header, what it says, and whether its
/// device is listed (only a DEVICES datagram may come from one that is not).
struct VerifiedDatagram: Sendable {
    var header: DatagramHeader
    var message: HandoffMessage
    var listed: Bool
}
