import Crypto
import FoundationEssentials
import PropertyList
import HandoffWire

/// Choosing what carries a saved record: an ANNOUNCE when it fits one datagram, else an OFFER
/// and the state bytes to serve over the state stream (docs/PROTOCOL.md, "OFFER" and "Saving").
extension HandoffCore {
    /// What a save publishes.
    struct Publication: Sendable {
        var message: HandoffMessage
        /// For an OFFER: the state to keep for fetching.
        var shelve: Action?
        /// Bytes of the state encoding.
        var stateSize: Int
    }

    /// The message for a saved record (its `savedAt` is the save's time), or why it cannot go.
    /// Pure, and safe off the main actor: for a large state this is the save's costly part
    /// (the encoding and its SHA-256).
    static func publication(
        for record: ActivityRecord, _ configuration: ActivityCenter.Configuration, port streamPort: Int?
    ) throws(HandoffError) -> Publication {
        // With sentAt equal to savedAt, the ANNOUNCE plaintext is exactly the state encoding:
        // one encoding both sizes the datagram and, when it is too large, is what is served.
        var state = stateEncoding(of: record)
        let datagram = DatagramHeader.minimumDatagramLength + state.count
        if datagram <= configuration.maximumDatagramSize {
            return Publication(message: .announce(record), shelve: nil, stateSize: state.count)
        }
        guard state.count <= configuration.stateLimit else {
            throw .stateTooLarge(bytes: state.count, limit: configuration.stateLimit)
        }
        guard let port = streamPort else {
            throw .payloadTooLarge(bytes: datagram, limit: configuration.maximumDatagramSize)
        }
        state = Self.trimmed(state)
        let digest = Array(SHA256.hash(data: state))
        let offer = StateOffer(size: state.count, digest: digest, port: port)
        let message = try Self.offerMessage(for: record, state: offer, limit: configuration.maximumDatagramSize)
        return Publication(
            message: message,
            shelve: .shelve(activityID: record.activityID, revision: record.revision, digest: digest, record: record),
            stateSize: state.count)
    }

    /// The state encoding of a numbered record: the plaintext of its ANNOUNCE sent at its save
    /// time. The writer is canonical, so the same record always makes the same bytes.
    static func stateEncoding(of record: ActivityRecord) -> [UInt8] {
        DatagramCodec.plaintext(.announce(record), sentAt: record.savedAt)
    }

    /// `bytes` in a buffer of its own size. The plist writer's output grew by doubling, so its
    /// buffer may be up to twice the state; the shelf keeps two revisions of it for as long as
    /// they are current, so it keeps them at their size.
    static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.capacity - bytes.count > bytes.count / 16 else { return bytes }
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            bytes.withUnsafeBufferPointer { source in
                if let from = source.baseAddress, let to = buffer.baseAddress { to.initialize(from: from, count: source.count) }
            }
            count = bytes.count
        }
    }

    /// The OFFER for `record`: its summary holds the small userInfo entries, as many as fit
    /// `limit`, the longest left out first.
    static func offerMessage(for record: ActivityRecord, state: StateOffer, limit: Int) throws(HandoffError)
        -> HandoffMessage
    {
        var summary = record.userInfo.filter { isSummaryValue($0.value) }
        var leaveOut = summary.sorted(by: leftOutBefore).map(\.key)[...]
        while true {
            var described = record
            described.userInfo = summary
            let message = HandoffMessage.offer(described, state: state)
            let size = DatagramHeader.minimumDatagramLength + DatagramCodec.plaintext(message, sentAt: record.savedAt).count
            if size <= limit { return message }
            guard let key = leaveOut.popFirst() else { throw .descriptionTooLarge(bytes: size, limit: limit) }
            summary[key] = nil
        }
    }

    /// Booleans, numbers, dates and strings of at most 255 UTF-8 bytes go into a summary.
    static func isSummaryValue(_ value: PropertyListValue) -> Bool {
        switch value {
        case .boolean, .integer, .real, .date: true
        case .string(let s): s.utf8.count <= 255
        case .data, .array, .dictionary: false
        }
    }

    /// Whether `a` is left out of a summary before `b`: the longer first, and between entries of
    /// one length the greater key by its UTF-8 bytes (not Swift's `String` order, which compares
    /// canonical equivalents as equal).
    static func leftOutBefore(_ a: (key: String, value: PropertyListValue), _ b: (key: String, value: PropertyListValue))
        -> Bool
    {
        let (wa, wb) = (weight(a), weight(b))
        if wa != wb { return wa > wb }
        return b.key.utf8.lexicographicallyPrecedes(a.key.utf8)
    }

    /// How long an entry is: its key and value in UTF-8 bytes (8 for a boolean, number or date).
    private static func weight(_ entry: (key: String, value: PropertyListValue)) -> Int {
        if case .string(let s) = entry.value { return entry.key.utf8.count + s.utf8.count }
        return entry.key.utf8.count + 8
    }
}
