import Crypto
import FoundationEssentials

/// The 16 bucket digests of a key-value store (docs/PROTOCOL.md, section 18): two devices that
/// hold the same versions of the same keys have the same digests, and the buckets that differ
/// say which entries to send.
public struct StoreDigests: Hashable, Sendable {
    public static let bucketCount = 16
    public static let digestLength = 8
    /// 16 × 8 bytes.
    public static let length = bucketCount * digestLength
    /// The digest of an empty bucket: the first 8 bytes of SHA-256 of nothing.
    public static let emptyBucket: [UInt8] = Array(SHA256.hash(data: [UInt8]()).prefix(digestLength))

    /// 128 bytes: the buckets' digests in bucket order.
    public let bytes: [UInt8]

    /// Wraps 128 bytes; nil for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = Array(bytes)
    }

    /// The digests of a store holding `entries` (keys and versions; tombstones included).
    public init(entries: some Sequence<(key: String, version: StoreVersion)>) {
        var buckets = [[(hash: [UInt8], version: StoreVersion)]](repeating: [], count: Self.bucketCount)
        for entry in entries {
            let hash = Self.keyHash(entry.key)
            buckets[Self.bucket(ofHash: hash)].append((hash, entry.version))
        }
        bytes = buckets.flatMap { Self.digest(of: $0) }
    }

    /// The digests of a store in which every bucket is empty.
    public static let empty = StoreDigests(entries: [(key: String, version: StoreVersion)]())

    /// The digest of bucket `index` (0–15).
    public func bucket(_ index: Int) -> ArraySlice<UInt8> {
        bytes[index * Self.digestLength..<(index + 1) * Self.digestLength]
    }

    /// The buckets whose digests differ from `other`'s, in order.
    public func buckets(differingFrom other: StoreDigests) -> [Int] {
        (0..<Self.bucketCount).filter { bucket($0) != other.bucket($0) }
    }

    /// SHA-256 of the key's UTF-8 bytes.
    public static func keyHash(_ key: String) -> [UInt8] { Array(SHA256.hash(data: Array(key.utf8))) }

    /// The bucket of a key: the high 4 bits of the first byte of SHA-256(key).
    public static func bucket(of key: String) -> Int { bucket(ofHash: keyHash(key)) }

    static func bucket(ofHash hash: [UInt8]) -> Int { Int(hash[0] >> 4) }

    /// The digest of one bucket's entries: SHA-256 over SHA-256(key) ‖ version for each,
    /// ordered by SHA-256(key), first 8 bytes.
    static func digest(of entries: [(hash: [UInt8], version: StoreVersion)]) -> [UInt8] {
        var hasher = SHA256()
        for entry in entries.sorted(by: { $0.hash.lexicographicallyPrecedes($1.hash) }) {
            hasher.update(data: entry.hash)
            hasher.update(data: entry.version.bytes)
        }
        return Array(hasher.finalize().prefix(Self.digestLength))
    }
}
