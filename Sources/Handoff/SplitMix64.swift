/// A small, fast, seeded generator (SplitMix64): the protocol core's jitter, and repeatable
/// faults and data in tests.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in 0..<1.
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// `count` bytes, eight from each draw: data that is not all alike, so a cut, shifted or
    /// swapped range of it cannot compare equal.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        // Written in place, a word at a time: tests draw 16 MB of it, and a byte appended at a
        // time took seconds of a debug build's test thread.
        let total = max(0, count)
        return [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
            var index = 0
            while index < total {
                var word = next()
                let end = min(index + 8, total)
                while index < end {
                    out[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
            initialized = total
        }
    }
}
