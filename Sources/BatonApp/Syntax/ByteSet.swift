/// A set of bytes, as four words of bits: `NeededBytes`' answer, and the bytes a line holds.
struct ByteSet: Equatable, Sendable {
    private var low: (UInt64, UInt64) = (0, 0)
    private var high: (UInt64, UInt64) = (0, 0)

    static let all: ByteSet = {
        var set = ByteSet()
        set.low = (.max, .max)
        set.high = (.max, .max)
        return set
    }()

    init() {}

    init(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { insert(byte) }
    }

    init(_ range: ClosedRange<UInt8>) {
        for byte in range { insert(byte) }
    }

    static func == (a: ByteSet, b: ByteSet) -> Bool {
        a.low == b.low && a.high == b.high
    }

    mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: low.0 |= bit
        case 1: low.1 |= bit
        case 2: high.0 |= bit
        default: high.1 |= bit
        }
    }

    func contains(_ byte: UInt8) -> Bool {
        let word = switch byte >> 6 {
        case 0: low.0
        case 1: low.1
        case 2: high.0
        default: high.1
        }
        return word & (UInt64(1) << UInt64(byte & 63)) != 0
    }

    func union(_ other: ByteSet) -> ByteSet {
        var set = self
        set.low = (low.0 | other.low.0, low.1 | other.low.1)
        set.high = (high.0 | other.high.0, high.1 | other.high.1)
        return set
    }

    var complement: ByteSet {
        var set = self
        set.low = (~low.0, ~low.1)
        set.high = (~high.0, ~high.1)
        return set
    }

    func intersects(_ other: ByteSet) -> Bool {
        low.0 & other.low.0 != 0 || low.1 & other.low.1 != 0 || high.0 & other.high.0 != 0 || high.1 & other.high.1 != 0
    }

    /// The set with each ASCII letter's other case added.
    var withBothCases: ByteSet {
        var set = self
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") where contains(byte) || contains(byte | 0x20) {
            set.insert(byte)
            set.insert(byte | 0x20)
        }
        return set
    }

    /// The bytes in the set, in order.
    var members: [UInt8] { (0...255).map(UInt8.init).filter(contains) }
}
