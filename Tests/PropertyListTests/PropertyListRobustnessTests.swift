import Foundation
import Testing
@testable import PropertyList
import PropertyListFoundation

/// Hostile bytes never crash the reader: each input is read or refused with an error.
///
/// Whatever the reader accepts must be a well-formed value within the limits: the
/// canonical writer's bytes of it read back exactly the same.
@Suite("Binary property-list reader on hostile input")
struct PropertyListRobustnessTests {
    let reader = BinaryPropertyListReader()
    let writer = BinaryPropertyListWriter()

    /// Counts of what happened to a batch of inputs.
    struct Outcome {
        var accepted = 0
        var refused = 0
        var unsound: [String] = []
    }

    func feed(_ bytes: [UInt8], into outcome: inout Outcome) {
        do {
            let value = try reader.read(bytes)
            outcome.accepted += 1
            // An accepted value stays within the limits and survives a round trip.
            do {
                let again = try reader.read(writer.write(value))
                if !plistExactlyEqual(again, value) {
                    outcome.unsound.append("round trip changed \(value) into \(again)")
                }
            } catch {
                outcome.unsound.append("accepted \(value) but refused its canonical bytes: \(error)")
            }
        } catch {
            outcome.refused += 1
            if error.description.isEmpty {
                outcome.unsound.append("an error without a description: \(error)")
            }
        }
    }

    /// Valid plists to mutate: from the canonical writer, from Foundation, and the fuzz seed.
    static func seeds() throws -> [[UInt8]] {
        var generator = PlistTestGenerator(seed: 0xBA70_0010, maxDepth: 4)
        var seeds: [[UInt8]] = [try PropertyListReaderTests.fixture("seed-valid")]
        for index in 0..<40 {
            var value = generator.value()
            if case .dictionary = value {} else { value = ["root": value] }
            if index.isMultiple(of: 2) {
                seeds.append(BinaryPropertyListWriter().write(value))
            } else {
                let data = try PropertyListSerialization.data(fromPropertyList: value.foundationObject, format: .binary, options: 0)
                if data.count <= 60_000 { seeds.append(Array(data)) }
            }
        }
        return seeds
    }

    @Test func randomBytesAreReadOrRefused() {
        var random = PlistTestRandom(seed: 0xBA70_0011)
        var outcome = Outcome()
        for index in 0..<4_000 {
            let length = Int.random(in: 0...200, using: &random)
            var bytes = random.bytes(count: length)
            if index.isMultiple(of: 2) {
                // Past the header check, so the trailer and objects get exercised.
                bytes = Array("bplist00".utf8) + bytes
            }
            feed(bytes, into: &outcome)
        }
        #expect(outcome.unsound.isEmpty, "\(outcome.unsound.prefix(3))")
        #expect(outcome.accepted + outcome.refused == 4_000)
        #expect(outcome.refused > 3_900)
    }

    @Test func plausibleTrailersOverRandomObjectsAreReadOrRefused() {
        // Random objects with a trailer that passes the first checks reach the object decoding.
        var random = PlistTestRandom(seed: 0xBA70_0012)
        var outcome = Outcome()
        for _ in 0..<4_000 {
            let objectCount = Int.random(in: 1...12, using: &random)
            let area = random.bytes(count: Int.random(in: objectCount...(objectCount * 6), using: &random))
            let offsets = (0..<objectCount).map { _ in 8 + Int.random(in: 0..<area.count, using: &random) }
            let plist = Self.plist(area: area, offsets: offsets, top: Int.random(in: 0..<objectCount, using: &random))
            feed(plist, into: &outcome)
        }
        #expect(outcome.unsound.isEmpty, "\(outcome.unsound.prefix(3))")
        #expect(outcome.accepted > 0)
        #expect(outcome.refused > 0)
    }

    @Test func mutatedValidPlistsAreReadOrRefused() throws {
        var random = PlistTestRandom(seed: 0xBA70_0013)
        let seeds = try Self.seeds()
        var outcome = Outcome()
        for _ in 0..<6_000 {
            var bytes = seeds.randomElement(using: &random) ?? []
            let trailer = bytes.count - 32
            let table = RawBinaryPlist.tableOffset(of: bytes)
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                switch Int.random(in: 0..<5, using: &random) {
                case 0:  // flip one bit anywhere
                    let position = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[position] ^= 1 << UInt8.random(in: 0...7, using: &random)
                case 1:  // cut the end off
                    bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
                case 2 where bytes.count > 40:  // overwrite a trailer byte
                    let position = bytes.count - 32 + Int.random(in: 0..<32, using: &random)
                    bytes[position] = [0x00, 0xFF, 0x01, 0x09, 0x7F, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random) ?? 0
                case 3 where table < trailer && trailer <= bytes.count:  // overwrite an offset-table byte
                    bytes[Int.random(in: table..<trailer, using: &random)] = UInt8.random(in: 0...255, using: &random)
                case 4 where table > 8 && table <= bytes.count:  // put a marker somewhere among the objects
                    let markers: [UInt8] = [0x00, 0x0F, 0x14, 0x1F, 0x4F, 0x5F, 0x6F, 0x80, 0xAF, 0xC1, 0xDF, 0xFF]
                    bytes[Int.random(in: 8..<table, using: &random)] = markers.randomElement(using: &random) ?? 0
                default:
                    break
                }
                if bytes.isEmpty { break }
            }
            feed(bytes, into: &outcome)
        }
        #expect(outcome.unsound.isEmpty, "\(outcome.unsound.prefix(3))")
        #expect(outcome.accepted > 0)
        #expect(outcome.refused > 0)
    }

    @Test func everySingleByteChangeToTheSeedIsReadOrRefused() throws {
        let seed = try PropertyListReaderTests.fixture("seed-valid")
        var outcome = Outcome()
        for position in seed.indices {
            for replacement: UInt8 in [0x00, 0x01, 0x0F, 0x10, 0x7F, 0x80, 0xC1, 0xFF, seed[position] &+ 1, seed[position] &- 1] {
                var bytes = seed
                bytes[position] = replacement
                feed(bytes, into: &outcome)
            }
        }
        #expect(outcome.unsound.isEmpty, "\(outcome.unsound.prefix(3))")
        #expect(outcome.accepted + outcome.refused == seed.count * 10)
        #expect(outcome.refused > 0)
    }

    @Test func everyTruncationIsRefused() throws {
        let plist = writer.write(["text": "你好", "list": [1, 2.5, true], "when": .date(Date(timeIntervalSinceReferenceDate: 7))])
        for length in 0..<plist.count {
            #expect(throws: PropertyListReadError.self) { try reader.read(plist.prefix(length)) }
        }
    }

    /// A plist whose object area is `area` verbatim, with the given offsets and top object.
    static func plist(area: [UInt8], offsets: [Int], top: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8) + area
        let table = bytes.count
        for offset in offsets {
            bytes.append(UInt8(offset))
        }
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += RawBinaryPlist.bigEndian(UInt64(offsets.count), width: 8)
        bytes += RawBinaryPlist.bigEndian(UInt64(top), width: 8)
        bytes += RawBinaryPlist.bigEndian(UInt64(table), width: 8)
        return bytes
    }
}
