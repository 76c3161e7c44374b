import Foundation
import PropertyList

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

    public init(store: String, digests: StoreDigests, entries: [StoreEntry] = [], took: [StoreVersion] = []) {
        self.store = store
        self.digests = digests
        self.entries = entries
        self.took = took
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
        // Every type first (step 13), then the lengths and names (step 13a).
        var raws: [(key: String, version: Data, value: PropertyListValue?, replaces: Data?, kept: Bool)] = []
        raws.reserveCapacity(entryArray.count)
        for element in entryArray { raws.append(try StoreEntry.types(of: element)) }
        guard isValidName(store), let digests = StoreDigests(bytes: digestsData) else { throw .invalidValue }
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
        return StoreMessage(store: store, digests: digests, entries: entries, took: took)
    }
}
