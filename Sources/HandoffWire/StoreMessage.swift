import FoundationEssentials
import PropertyList

/// Where a STORE's store state is served (docs/PROTOCOL.md, section 18, "Store states"): the
/// canonical plist of an array of entries, fetched over the state stream from the datagram's
/// source as `StateShelf.Key.storeState` (a GET for `store:NAME`) and `revision`.
public struct StoreState: Equatable, Sendable {
    /// A store state is at most 4 MiB.
    public static let sizes = 1...4_194_304

    public let size: Int
    public let digest: [UInt8]
    public let port: Int
    public let revision: Int

    public init(size: Int, digest: [UInt8], port: Int, revision: Int) {
        self.size = size
        self.digest = digest
        self.port = port
        self.revision = revision
    }

    var plist: PropertyListValue {
        .dictionary([
            "size": .integer(size), "digest": .data(Data(digest)), "port": .integer(port), "revision": .integer(revision),
        ])
    }

    /// The bytes of a store state holding `entries`.
    public static func encode(_ entries: [StoreEntry]) -> [UInt8] {
        BinaryPropertyListWriter().write(.array(entries.map(\.plist)))
    }

    /// The entries of a store state's bytes, read with the page's limits.
    public static func decode(_ bytes: [UInt8]) throws(RejectionReason) -> [StoreEntry] {
        let limits = BinaryPropertyListReader.Limits(maxObjects: 65_536, maxBytes: sizes.upperBound)
        guard let root = try? BinaryPropertyListReader(limits: limits).read(bytes) else { throw .malformedPayload }
        guard let array = root.arrayValue else { throw .wrongType }
        var entries: [StoreEntry] = []
        entries.reserveCapacity(array.count)
        for element in array { entries.append(try StoreEntry(plist: element)) }
        return entries
    }
}

/// What a STORE datagram says (docs/PROTOCOL.md, section 18): the sender's digests of one store,
/// entries of it, and the versions the sender took from a STORE it answers.
public struct StoreMessage: Equatable, Sendable {
    /// Store names are 1–64 UTF-8 bytes.
    public static let nameBytes = 1...64

    public let store: String
    public let digests: StoreDigests
    public let entries: [StoreEntry]
    /// Versions of entries the sender has just taken; empty when it answers nothing.
    public let took: [StoreVersion]
    /// More entries, over the state stream.
    public let state: StoreState?

    public init(
        store: String, digests: StoreDigests, entries: [StoreEntry] = [], took: [StoreVersion] = [], state: StoreState? = nil
    ) {
        self.store = store
        self.digests = digests
        self.entries = entries
        self.took = took
        self.state = state
    }

    /// Whether `name` can name a store: 1–64 UTF-8 bytes, no `/` or NUL, not starting with `.`.
    public static func isValidName(_ name: String) -> Bool {
        nameBytes.contains(name.utf8.count) && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0")
    }

    /// The payload's keys besides `sentAt`.
    func add(to dict: inout [String: PropertyListValue]) {
        dict["store"] = .string(store)
        dict["digests"] = .data(Data(digests.bytes))
        dict["entries"] = .array(entries.map(\.plist))
        if !took.isEmpty { dict["took"] = .array(took.map { .data(Data($0.bytes)) }) }
        if let state { dict["state"] = state.plist }
    }

    /// Reads a STORE payload's keys besides `sentAt`, in the order of section 7, step 13.
    static func read(_ dict: [String: PropertyListValue]) throws(RejectionReason) -> StoreMessage {
        guard let storeValue = dict["store"] else { throw .missingKey }
        guard let store = storeValue.stringValue else { throw .wrongType }
        guard let digestsValue = dict["digests"] else { throw .missingKey }
        guard let digestsData = digestsValue.dataValue else { throw .wrongType }
        guard let entriesValue = dict["entries"] else { throw .missingKey }
        guard let entryArray = entriesValue.arrayValue else { throw .wrongType }
        var tookData: [Data] = []
        if let tookValue = dict["took"] {
            guard let array = tookValue.arrayValue else { throw .wrongType }
            tookData.reserveCapacity(array.count)
            for element in array {
                guard let data = element.dataValue else { throw .wrongType }
                tookData.append(data)
            }
        }
        var rawState: (size: Int, digest: Data, port: Int, revision: Int)?
        if let stateValue = dict["state"] {
            guard let state = stateValue.dictionaryValue else { throw .wrongType }
            func required<T>(_ key: String, _ get: (PropertyListValue) -> T?) throws(RejectionReason) -> T {
                guard let value = state[key] else { throw .missingKey }
                guard let typed = get(value) else { throw .wrongType }
                return typed
            }
            rawState = (
                try required("size", \.intValue), try required("digest", \.dataValue), try required("port", \.intValue),
                try required("revision", \.intValue)
            )
        }
        // Every type first (step 13), then the lengths and names (step 13a).
        var raws: [(key: String, version: Data, value: PropertyListValue?, replaces: Data?, kept: Bool)] = []
        raws.reserveCapacity(entryArray.count)
        for element in entryArray { raws.append(try StoreEntry.types(of: element)) }
        guard isValidName(store), let digests = StoreDigests(bytes: digestsData) else { throw .invalidValue }
        var state: StoreState?
        if let raw = rawState {
            guard StoreState.sizes.contains(raw.size), raw.digest.count == 32, (1...65_535).contains(raw.port), raw.revision >= 1
            else { throw .invalidValue }
            state = StoreState(size: raw.size, digest: Array(raw.digest), port: raw.port, revision: raw.revision)
        }
        var took: [StoreVersion] = []
        took.reserveCapacity(tookData.count)
        for data in tookData {
            guard let version = StoreVersion(bytes: data) else { throw .invalidValue }
            took.append(version)
        }
        var entries: [StoreEntry] = []
        entries.reserveCapacity(raws.count)
        for raw in raws {
            guard StoreEntry.isValidKey(raw.key), let version = StoreVersion(bytes: raw.version) else { throw .invalidValue }
            var replaces: StoreVersion?
            if let data = raw.replaces {
                guard let version = StoreVersion(bytes: data) else { throw .invalidValue }
                replaces = version
            }
            entries.append(StoreEntry(key: raw.key, value: raw.value, version: version, replaces: replaces, kept: raw.kept))
        }
        return StoreMessage(store: store, digests: digests, entries: entries, took: took, state: state)
    }
}
