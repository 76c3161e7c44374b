import FoundationEssentials
import PropertyList

/// The payload of a datagram, one case per kind (docs/PROTOCOL.md, "Payloads").
public enum HandoffMessage: Equatable, Sendable {
    /// The sender's current activity.
    case announce(ActivityRecord)
    /// The activity ended; forget it.
    case withdraw(activityID: String)
    /// Who has a current activity (of these types, when given)?
    case query(types: [String]?)
    /// The named activity was continued by `peer`.
    case continued(activityID: String, peer: PeerInfo)
    /// The sender's current activity, too large for an ANNOUNCE: the record's `userInfo` holds
    /// only the summary, and `state` says what to fetch over the state stream.
    case offer(ActivityRecord, state: StateOffer)
    /// Version 3: statements about the group's devices, whole (`Statement`), and the digest of
    /// every statement the sender keeps (`Statement.setDigest`) (docs/PROTOCOL.md, section 17).
    case devices(statements: [[UInt8]], digest: [UInt8])
    /// Version 3: one key-value store's digests, entries of it, and what the sender took
    /// (docs/PROTOCOL.md, section 18).
    case store(StoreMessage)

    /// A statement in a DEVICES datagram is at least a signature and a small body, at most 1,024 bytes.
    public static let statementSizes = 64...1_024
    /// A DEVICES digest is 8 bytes.
    public static let devicesDigestLength = 8

    /// The datagram kind that carries this message.
    public var kind: DatagramKind {
        switch self {
        case .announce: .announce
        case .withdraw: .withdraw
        case .query: .query
        case .continued: .continued
        case .offer: .offer
        case .devices: .devices
        case .store: .store
        }
    }

    /// What an OFFER says to fetch; nil for every other kind.
    public var stateOffer: StateOffer? {
        if case .offer(_, let state) = self { state } else { nil }
    }

    /// The record an ANNOUNCE or OFFER publishes, and for an OFFER what to fetch.
    public var published: (record: ActivityRecord, state: StateOffer?)? {
        switch self {
        case .announce(let record): (record, nil)
        case .offer(let record, let state): (record, state)
        default: nil
        }
    }

    /// The payload dictionary, `sentAt` included.
    public func payload(sentAt: Date) -> [String: PropertyListValue] {
        var dict: [String: PropertyListValue] = ["sentAt": .date(sentAt)]
        switch self {
        case .announce(let r):
            Self.addRecord(r, userInfoKey: "userInfo", to: &dict)
        case .offer(let r, let state):
            Self.addRecord(r, userInfoKey: "summary", to: &dict)
            dict["size"] = .integer(state.size)
            dict["digest"] = .data(Data(state.digest))
            dict["port"] = .integer(state.port)
        case .withdraw(let id):
            dict["activityID"] = .string(id)
        case .query(let types):
            if let types { dict["types"] = .array(types.map(PropertyListValue.string)) }
        case .continued(let id, let peer):
            dict["activityID"] = .string(id)
            dict["peer"] = peer.plist
        case .devices(let statements, let digest):
            dict["statements"] = .array(statements.map { .data(Data($0)) })
            dict["digest"] = .data(Data(digest))
        case .store(let message):
            message.add(to: &dict)
        }
        return dict
    }

    private static func addRecord(_ r: ActivityRecord, userInfoKey: String, to dict: inout [String: PropertyListValue]) {
        dict["activityID"] = .string(r.activityID)
        dict["type"] = .string(r.activityType)
        dict["revision"] = .integer(r.revision)
        dict["savedAt"] = .date(r.savedAt)
        dict[userInfoKey] = .dictionary(r.userInfo)
        dict["peer"] = r.peer.plist
        if let title = r.title { dict["title"] = .string(title) }
        if let keys = r.requiredUserInfoKeys { dict["requiredUserInfoKeys"] = .array(keys.map(PropertyListValue.string)) }
        if let url = r.webpageURL { dict["webpageURL"] = .string(url) }
        if let keywords = r.keywords { dict["keywords"] = .array(keywords.map(PropertyListValue.string)) }
        if let expiresAt = r.expiresAt { dict["expiresAt"] = .date(expiresAt) }
        if let port = r.continuationPort { dict["continuationPort"] = .integer(port) }
    }

    /// Reads a payload of the given kind, checking every required key and every type.
    /// Unknown keys are ignored. Returns the message and its `sentAt`.
    public static func decode(kind: DatagramKind, payload: [String: PropertyListValue]) throws(RejectionReason)
        -> (message: HandoffMessage, sentAt: Date)
    {
        let p = PayloadReader(payload)
        let sentAt = try p.required("sentAt", \.dateValue)
        switch kind {
        case .announce:
            let record = try p.record(userInfoKey: "userInfo")
            try checkValues(of: record)
            return (.announce(record), sentAt)
        case .offer:
            let record = try p.record(userInfoKey: "summary")
            let size = try p.required("size", \.intValue)
            let digest = try p.required("digest", \.dataValue)
            let port = try p.required("port", \.intValue)
            try checkValues(of: record)
            guard size >= 1, digest.count == 32, (1...65_535).contains(port) else { throw .invalidValue }
            return (.offer(record, state: StateOffer(size: size, digest: Array(digest), port: port)), sentAt)
        case .withdraw:
            let id = try p.required("activityID", \.stringValue)
            guard ActivityRecord.isValidActivityID(id) else { throw .invalidValue }
            return (.withdraw(activityID: id), sentAt)
        case .query:
            return (.query(types: try p.optionalStrings("types")), sentAt)
        case .continued:
            let id = try p.required("activityID", \.stringValue)
            let peer = try p.peer()
            guard ActivityRecord.isValidActivityID(id) else { throw .invalidValue }
            return (.continued(activityID: id, peer: peer), sentAt)
        case .devices:
            let array = try p.required("statements", \.arrayValue)
            var statements: [[UInt8]] = []
            statements.reserveCapacity(array.count)
            for element in array {
                guard let data = element.dataValue else { throw .wrongType }
                statements.append(Array(data))
            }
            let digest = try p.required("digest", \.dataValue)
            guard statements.allSatisfy({ statementSizes.contains($0.count) }), digest.count == devicesDigestLength else {
                throw .invalidValue
            }
            return (.devices(statements: statements, digest: Array(digest)), sentAt)
        case .store:
            return (.store(try StoreMessage.read(payload)), sentAt)
        }
    }

    /// The value rules of a record that arrives (docs/PROTOCOL.md section 7, step 9a): a UUID
    /// for `activityID`, a reverse-DNS `type`, a `revision` of 1 or more, and an http(s)
    /// `webpageURL`. Nothing that breaks them reaches the directory, a log line or a screen.
    static func checkValues(of record: ActivityRecord) throws(RejectionReason) {
        guard ActivityRecord.isValidActivityID(record.activityID),
            ActivityRecord.isValidActivityType(record.activityType),
            record.revision >= 1,
            record.webpageURL.map(ActivityRecord.isValidWebpageURL) ?? true,
            record.continuationPort.map({ (1...65_535).contains($0) }) ?? true
        else { throw .invalidValue }
    }
}

/// Typed, checked access to a payload dictionary.
private struct PayloadReader {
    let dict: [String: PropertyListValue]
    init(_ dict: [String: PropertyListValue]) { self.dict = dict }

    func required<T>(_ key: String, _ get: (PropertyListValue) -> T?, in d: [String: PropertyListValue]? = nil) throws(RejectionReason) -> T {
        guard let value = (d ?? dict)[key] else { throw .missingKey }
        guard let typed = get(value) else { throw .wrongType }
        return typed
    }

    func optional<T>(_ key: String, _ get: (PropertyListValue) -> T?, in d: [String: PropertyListValue]? = nil)
        throws(RejectionReason) -> T?
    {
        guard let value = (d ?? dict)[key] else { return nil }
        guard let typed = get(value) else { throw .wrongType }
        return typed
    }

    func optionalStrings(_ key: String) throws(RejectionReason) -> [String]? {
        guard let array = try optional(key, \.arrayValue) else { return nil }
        var out: [String] = []
        out.reserveCapacity(array.count)
        for element in array {
            guard let s = element.stringValue else { throw .wrongType }
            out.append(s)
        }
        return out
    }

    /// The keys an ANNOUNCE and an OFFER share, in the order of docs/PROTOCOL.md section 7,
    /// with the userInfo under `userInfoKey` (`summary` in an OFFER).
    func record(userInfoKey: String) throws(RejectionReason) -> ActivityRecord {
        var record = ActivityRecord(
            activityID: try required("activityID", \.stringValue),
            activityType: try required("type", \.stringValue),
            revision: try required("revision", \.intValue),
            savedAt: try required("savedAt", \.dateValue),
            userInfo: try required(userInfoKey, \.dictionaryValue),
            title: try optional("title", \.stringValue),
            requiredUserInfoKeys: try optionalStrings("requiredUserInfoKeys"),
            webpageURL: try optional("webpageURL", \.stringValue),
            keywords: try optionalStrings("keywords"),
            expiresAt: try optional("expiresAt", \.dateValue),
            peer: try peer())
        record.continuationPort = try optional("continuationPort", \.intValue)
        return record
    }

    func peer() throws(RejectionReason) -> PeerInfo {
        let d = try required("peer", \.dictionaryValue)
        return PeerInfo(
            name: try required("name", \.stringValue, in: d),
            host: try required("host", \.stringValue, in: d),
            app: try required("app", \.stringValue, in: d),
            appVersion: try required("appVersion", \.stringValue, in: d),
            protocolVersion: try optional("protocol", \.intValue, in: d))
    }
}
