import Crypto
import FoundationEssentials
import PropertyList

/// A SHA-256 fingerprint of an activity record: what the receive gate and the directory
/// keep and compare to tell a repeat from a change, instead of whole records and trees.
///
/// It covers every field of the record in a fixed order, with every value tagged by its
/// type and every string and container prefixed by its length, and dictionaries in the
/// order of their sorted keys, so two records have the same digest exactly when their
/// fields hold the same bytes (strings as UTF-8, reals and dates by bit pattern). It is computed by this peer, never sent.
public struct RecordDigest: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public var description: String { PlainText.hex(bytes.prefix(8)) }
}

extension ActivityRecord {
    /// This record's fingerprint (see ``RecordDigest``).
    public var digest: RecordDigest {
        var writer = DigestWriter()
        writer.string(activityID)
        writer.string(activityType)
        writer.integer(revision)
        writer.date(savedAt)
        writer.dictionary(userInfo)
        writer.optional(title) { $0.string($1) }
        writer.optional(requiredUserInfoKeys) { $0.strings($1) }
        writer.optional(webpageURL) { $0.string($1) }
        writer.optional(keywords) { $0.strings($1) }
        writer.optional(expiresAt) { $0.date($1) }
        // Written only when present, so a record without it keeps the digest it always had.
        if let continuationPort { writer.integer(continuationPort) }
        writer.string(peer.name)
        writer.string(peer.host)
        writer.string(peer.app)
        writer.string(peer.appVersion)
        writer.optional(peer.protocolVersion) { $0.integer($1) }
        return RecordDigest(bytes: Array(writer.hasher.finalize()))
    }
}

/// Feeds values to SHA-256 unambiguously: a tag byte per value, lengths before contents.
private struct DigestWriter {
    var hasher = SHA256()

    mutating func tag(_ tag: UInt8) {
        withUnsafeBytes(of: tag) { hasher.update(bufferPointer: $0) }
    }

    mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { hasher.update(bufferPointer: $0) }
    }

    mutating func integer(_ value: Int) {
        tag(1)
        word(UInt64(bitPattern: Int64(value)))
    }

    mutating func date(_ value: Date) {
        tag(2)
        word(value.timeIntervalSinceReferenceDate.bitPattern)
    }

    mutating func string(_ value: String) {
        tag(3)
        var value = value
        value.withUTF8 { utf8 in
            word(UInt64(utf8.count))
            hasher.update(bufferPointer: UnsafeRawBufferPointer(utf8))
        }
    }

    mutating func strings(_ values: [String]) {
        tag(4)
        word(UInt64(values.count))
        for value in values { string(value) }
    }

    mutating func optional<T>(_ value: T?, _ write: (inout DigestWriter, T) -> Void) {
        guard let value else { return tag(0) }
        write(&self, value)
    }

    mutating func dictionary(_ entries: [String: PropertyListValue]) {
        tag(5)
        word(UInt64(entries.count))
        for key in entries.keys.sorted() {
            string(key)
            value(entries[key]!)
        }
    }

    mutating func value(_ value: PropertyListValue) {
        switch value {
        case .string(let string): self.string(string)
        case .integer(let integer): self.integer(integer)
        case .date(let date): self.date(date)
        case .dictionary(let entries): dictionary(entries)
        case .real(let real):
            tag(6)
            word(real.bitPattern)
        case .boolean(let boolean):
            tag(boolean ? 7 : 8)
        case .data(let data):
            tag(9)
            word(UInt64(data.count))
            data.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        case .array(let elements):
            tag(10)
            word(UInt64(elements.count))
            for element in elements { self.value(element) }
        }
    }
}
