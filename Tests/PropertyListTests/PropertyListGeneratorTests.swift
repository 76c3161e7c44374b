import Foundation
import Testing
@testable import PropertyList

// Shared by the property-list tests: a seeded generator of values, an exact
// comparison, and a builder of hand-made binary plists.

/// SplitMix64: a tiny deterministic generator, so every run sees the same values.
struct PlistTestRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}

/// Random property-list values of all eight types, nested up to `maxDepth` containers.
struct PlistTestGenerator {
    var random: PlistTestRandom
    var maxDepth = 6
    /// Values left to create in the current tree; keeps trees small enough to test thousands.
    private var budget = 0

    init(seed: UInt64, maxDepth: Int = 6) {
        random = PlistTestRandom(seed: seed)
        self.maxDepth = maxDepth
    }

    /// One tree of at most about 120 values whose root is a container half the time.
    mutating func value() -> PropertyListValue {
        budget = 120
        return value(depth: 0)
    }

    private mutating func value(depth: Int) -> PropertyListValue {
        budget -= 1
        let containerChance = depth == 0 ? 0.6 : 0.45
        if depth < maxDepth, budget > 0, Double.random(in: 0..<1, using: &random) < containerChance {
            return Bool.random(using: &random) ? array(depth: depth + 1) : dictionary(depth: depth + 1)
        }
        return scalar()
    }

    private mutating func count() -> Int {
        // Mostly small, sometimes past the 15 that needs an extended length.
        Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 14...20, using: &random) : Int.random(in: 0...4, using: &random)
    }

    private mutating func array(depth: Int) -> PropertyListValue {
        .array((0..<count()).map { _ in value(depth: depth) })
    }

    private mutating func dictionary(depth: Int) -> PropertyListValue {
        var entries: [String: PropertyListValue] = [:]
        for _ in 0..<count() {
            entries[string()] = value(depth: depth)
        }
        return .dictionary(entries)
    }

    mutating func scalar() -> PropertyListValue {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: .string(string())
        case 1: .integer(integer())
        case 2: .real(real())
        case 3: .boolean(Bool.random(using: &random))
        case 4: .date(date())
        default: .data(Data(random.bytes(count: Int.random(in: 0..<8, using: &random) == 0 ? 300 : Int.random(in: 0...20, using: &random))))
        }
    }

    static let specialStrings = [
        "", "a", "count", "你好 world", "😀", "👩‍👩‍👧‍👦", "e\u{301}", "\u{E9}", "Ωmega", "\u{0}", "tab\tnew\nline",
        "日本語のテキスト", "한국어", "مرحبا", "🇨🇭🇯🇵", "a\u{0300}\u{0301}\u{0302}", String(repeating: "x", count: 300),
        "$null", "line\r\n", "\u{FEFF}bom", "\u{10FFFF}",
    ]

    mutating func string() -> String {
        if Bool.random(using: &random) {
            return Self.specialStrings.randomElement(using: &random) ?? ""
        }
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x20...0x7E, 0xA0...0x24F, 0x300...0x36F, 0x4E00...0x9FFF, 0x1F600...0x1F64F, 0x10000...0x10FFFF]
        let length = Int.random(in: 0..<8, using: &random) == 0 ? Int.random(in: 15...40, using: &random) : Int.random(in: 0...10, using: &random)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let range = ranges.randomElement(using: &random) ?? 0x20...0x7E
            if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &random)) {
                scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    static let specialIntegers = [
        0, 1, -1, 14, 15, 16, 127, 128, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296,
        Int(Int32.min), Int(Int32.max), Int.max, Int.min, Int.max - 1, Int.min + 1,
    ]

    mutating func integer() -> Int {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: Self.specialIntegers.randomElement(using: &random) ?? 0
        case 1: Int.random(in: -1000...1000, using: &random)
        case 2: Int(Int32.random(in: .min ... .max, using: &random))
        default: Int.random(in: .min ... .max, using: &random)
        }
    }

    static let specialReals: [Double] = [
        0, -0.0, 1, -1, 0.5, 2.5, .pi, 1e300, -1e-300, .infinity, -.infinity,
        .leastNonzeroMagnitude, .greatestFiniteMagnitude, Double(Float.pi), 0.1,
    ]

    mutating func real() -> Double {
        if Bool.random(using: &random) {
            return Self.specialReals.randomElement(using: &random) ?? 0
        }
        while true {
            let value = Double(bitPattern: random.next())
            if !value.isNaN { return value }
        }
    }

    mutating func date() -> Date {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: Date(timeIntervalSinceReferenceDate: 0)
        case 1: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -4_000_000_000...4_000_000_000, using: &random)))
        default:
            // Fractions of a second, down to the last bit of the double.
            Date(timeIntervalSinceReferenceDate: Double.random(in: -3e9...3e9, using: &random))
        }
    }
}

/// `isExactlyEqual(to:)`, as these tests write it.
func plistExactlyEqual(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
    lhs.isExactlyEqual(to: rhs)
}

/// The deepest nesting of containers in a value (a scalar is 0, `[]` is 1).
func plistDepth(_ value: PropertyListValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(plistDepth).max() ?? 0)
    case .dictionary(let entries): 1 + (entries.values.map(plistDepth).max() ?? 0)
    default: 0
    }
}

/// Hand-made binary plists: objects given as raw bytes, references one byte wide unless said otherwise.
enum RawBinaryPlist {
    static func build(
        _ objects: [[UInt8]], top: UInt64 = 0, referenceSize: UInt8 = 1, offsetSize: UInt8? = nil,
        objectCount: UInt64? = nil, offsets: [Int]? = nil
    ) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var starts: [Int] = []
        for object in objects {
            starts.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        let width = offsetSize ?? (tableOffset < 256 ? 1 : 2)
        for offset in offsets ?? starts {
            bytes += bigEndian(UInt64(offset), width: Int(width))
        }
        bytes += [0, 0, 0, 0, 0, 0, width, referenceSize]
        bytes += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
        bytes += bigEndian(top, width: 8)
        bytes += bigEndian(UInt64(tableOffset), width: 8)
        return bytes
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    /// Where the offset table starts, from the trailer.
    static func tableOffset(of plist: [UInt8]) -> Int {
        plist.suffix(8).reduce(0) { $0 << 8 | Int($1) }
    }
}

@Suite("Property-list test generator")
struct PropertyListGeneratorTests {
    @Test func sameSeedGivesSameValues() {
        var first = PlistTestGenerator(seed: 42)
        var second = PlistTestGenerator(seed: 42)
        for _ in 0..<50 {
            #expect(plistExactlyEqual(first.value(), second.value()))
        }
    }

    @Test func coversEveryTypeAndDepth() {
        var generator = PlistTestGenerator(seed: 7)
        var types: Set<PropertyListType> = []
        var deepest = 0
        func collect(_ value: PropertyListValue) {
            types.insert(value.typeName)
            switch value {
            case .array(let elements): elements.forEach(collect)
            case .dictionary(let entries): entries.values.forEach(collect)
            default: break
            }
        }
        for _ in 0..<500 {
            let value = generator.value()
            collect(value)
            deepest = max(deepest, plistDepth(value))
        }
        #expect(types == Set(PropertyListType.allCases))
        #expect(deepest == 6)
    }

    @Test func rawBuilderMakesWhatTheReaderReads() throws {
        let plist = RawBinaryPlist.build([[0xA2, 0x01, 0x02], [0x10, 0x07], [0x51, 0x61]])
        #expect(try BinaryPropertyListReader().read(plist) == [7, "a"])
    }
}
