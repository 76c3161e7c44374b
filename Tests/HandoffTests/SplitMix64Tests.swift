import Handoff
import Testing

@Suite("SplitMix64: the seeded generator of jitter and test data")
struct SplitMix64Tests {
    @Test("bytes(n) are the draws' eight bytes each, low byte first, cut at n; the same seed gives the same bytes")
    func bytesFromDraws() {
        var draws = SplitMix64(seed: 42)
        let words = (0..<3).map { _ in draws.next() }
        let expected = words.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
        for count in [0, 1, 7, 8, 9, 20] {
            var generator = SplitMix64(seed: 42)
            #expect(generator.bytes(count) == Array(expected.prefix(count)), "\(count) bytes")
        }
        var a = SplitMix64(seed: 7), b = SplitMix64(seed: 7)
        #expect(a.bytes(1_000) == b.bytes(1_000))
        #expect(a.bytes(-1).isEmpty)
    }
}
