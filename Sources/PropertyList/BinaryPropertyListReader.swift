import FoundationEssentials

/// A strict, bounded reader of `bplist00` binary property lists, safe for bytes from the network.
///
/// Foundation's readers are not safe on hostile input (a crafted set crashes
/// `PropertyListSerialization`, a reference cycle overflows the stack of
/// `PropertyListDecoder`), so Baton reads every received payload with this type.
/// It checks the header, every trailer field, the offset table, every object's
/// offset and extent (with overflow-checked arithmetic), every reference, the
/// nesting depth and the object count before it trusts them. It also budgets what
/// the result holds: values and string/data bytes, counted once per use of a shared
/// object, so that a small input cannot unfold into a huge tree (see
/// ``Limits/expandedByteBudget(forInputOf:)``). It throws a
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
        /// How many bytes of strings and data the result may hold at most, whatever the input's size,
        /// when shared objects are counted once per use (see ``expandedByteBudget(forInputOf:)``).
        public var maxExpandedBytes: Int

        /// Limits with the protocol's defaults; `maxExpandedObjects` defaults to four times `maxObjects`,
        /// `maxExpandedBytes` to the budget of an input of `maxBytes`.
        public init(
            maxDepth: Int = 32, maxObjects: Int = 65_536, maxBytes: Int = 60_000, maxExpandedObjects: Int? = nil,
            maxExpandedBytes: Int? = nil
        ) {
            self.maxDepth = maxDepth
            self.maxObjects = maxObjects
            self.maxBytes = maxBytes
            self.maxExpandedObjects = maxExpandedObjects ?? Self.fourTimes(maxObjects)
            self.maxExpandedBytes = maxExpandedBytes ?? Self.allowance(forInputOf: maxBytes)
        }

        /// The byte budget of one read: the string and data bytes a plist of `size` bytes may
        /// unfold to, counted as decoded (UTF-8 for strings) and once per use of a shared object,
        /// dictionary keys included. It is twice the input's size plus 4,096 bytes, and never
        /// more than `maxExpandedBytes`.
        ///
        /// Without sharing a plist's strings and data take at most 1.5 times its size once decoded
        /// (UTF-16 text that becomes 3-byte UTF-8), so honest plists fit with room for the equal
        /// values writers share; a small plist whose references name one long string thousands
        /// of times does not.
        public func expandedByteBudget(forInputOf size: Int) -> Int {
            min(maxExpandedBytes, Self.allowance(forInputOf: size))
        }

        private static func allowance(forInputOf size: Int) -> Int {
            let (doubled, overflow) = max(size, 0).multipliedReportingOverflow(by: 2)
            return overflow ? Int.max : doubled.addingReportingOverflow(4_096).overflow ? Int.max : doubled + 4_096
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
