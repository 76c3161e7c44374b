import Foundation

/// A strict, bounded reader of `bplist00` binary property lists, safe for bytes from the network.
///
/// Foundation's readers are not safe on hostile input (a crafted set crashes
/// `PropertyListSerialization`, a reference cycle overflows the stack of
/// `PropertyListDecoder`), so Baton reads every received payload with this type.
/// It checks the header, every trailer field, the offset table, every object's
/// offset and extent (with overflow-checked arithmetic), every reference, the
/// nesting depth and the object count before it trusts them, and it throws a
/// ``PropertyListReadError`` for anything else: it never traps.
///
/// Accepted are only the eight plist types: booleans, integers (1-, 2- and 4-byte
/// unsigned, 8-byte signed, 16-byte when the value fits in `Int`), 4- and 8-byte
/// reals, dates, data, ASCII and UTF-16BE strings, arrays, and dictionaries with
/// string keys (each key once). Null, fill, UIDs, sets and unknown markers are refused.
/// Objects may be shared (Foundation's writer shares equal values), but no container
/// may contain itself.
///
/// Depth counts containers: a root dictionary is at depth 1, a dictionary inside it
/// at depth 2; scalars add nothing. Recursion follows the depth, so keep
/// ``Limits/maxDepth`` modest (the protocol's 32).
public struct BinaryPropertyListReader: Sendable {
    /// The bounds a plist must stay within; the defaults are the wire limits of protocol version 1.
    public struct Limits: Sendable, Hashable {
        /// How deeply containers may nest; a container at a greater depth is refused.
        public var maxDepth: Int
        /// How many objects the plist's object table may hold.
        public var maxObjects: Int
        /// How many bytes the whole plist may have.
        public var maxBytes: Int
        /// How many values the result may unfold to when shared objects are counted once per use.
        ///
        /// Sharing lets a small file describe an enormous tree (an array holding the
        /// same array twice, 30 levels deep); this bounds the tree handed to callers.
        public var maxExpandedObjects: Int

        /// Limits with the protocol's defaults; `maxExpandedObjects` defaults to four times `maxObjects`.
        public init(maxDepth: Int = 32, maxObjects: Int = 65_536, maxBytes: Int = 60_000, maxExpandedObjects: Int? = nil) {
            self.maxDepth = maxDepth
            self.maxObjects = maxObjects
            self.maxBytes = maxBytes
            self.maxExpandedObjects = maxExpandedObjects ?? Self.fourTimes(maxObjects)
        }

        private static func fourTimes(_ count: Int) -> Int {
            let (product, overflow) = count.multipliedReportingOverflow(by: 4)
            return overflow ? Int.max : product
        }
    }

    /// The bounds this reader enforces.
    public var limits: Limits

    /// A reader enforcing `limits` (by default the protocol's).
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Reads one binary plist, or throws why it is not acceptable.
    public func read(_ bytes: some Collection<UInt8>) throws(PropertyListReadError) -> PropertyListValue {
        let count = bytes.count
        guard count <= limits.maxBytes else {
            throw .tooLarge(bytes: count, limit: limits.maxBytes)
        }
        var parser = try Parser(bytes: Array(bytes), limits: limits)
        return try parser.readTop()
    }
}
