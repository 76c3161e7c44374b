import HandoffTesting
import Testing
@testable import Handoff
@testable import HandoffWire

/// Frames and their plaintexts (docs/PROTOCOL.md section 10, "Frames").
@Suite("State stream frames")
struct StreamFrameTests {
    static let messages: [StreamMessage] = [
        .get(activityID: StreamFixtures.activityID, revision: 3, offset: 65_535, digest: Array(0..<32)),
        .get(activityID: String(repeating: "é", count: 127) + "x", revision: -1, offset: 0, digest: Array(repeating: 9, count: 32)),
        .start(size: 16 * 1024 * 1024, offset: 131_070),
        .data(StreamFixtures.state(1)[...]),
        .data(StreamFixtures.state(StateStream.maximumDataLength)[...]),
        .error(.notFound, message: "no state kept"),
        .error(.badRequest, message: ""),
    ]

    @Test("Every message survives sealing and opening, with its length and counter")
    func roundTrips() throws {
        var sealer = StreamFrameSealer(key: StreamFixtures.keys.server)
        var deframer = StreamDeframer(key: StreamFixtures.keys.server)
        for (index, message) in Self.messages.enumerated() {
            let frame = sealer.seal(message)
            let plaintext = message.plaintext
            #expect(frame.count == 4 + plaintext.count + 16)
            let length = plaintext.count + 16
            #expect(Array(frame.prefix(4)) == [0, UInt8(length >> 16), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
            deframer.append(frame)
            let opened = try #require(try deframer.next())
            #expect(opened == plaintext)
            #expect(try StreamMessage(plaintext: opened[...]) == message)
            #expect(deframer.counter == UInt64(index + 1))
            #expect(try deframer.next() == nil)
        }
    }

    @Test("Frames split at every offset come out whole and in order")
    func splitAtEveryOffset() throws {
        var sealer = StreamFrameSealer(key: StreamFixtures.keys.server)
        let small: [StreamMessage] = [.start(size: 700, offset: 0), .data(StreamFixtures.state(300)[...]), .error(.badRequest, message: "bye")]
        let stream = small.flatMap { sealer.seal($0) }
        for cut in 0...stream.count {
            var deframer = StreamDeframer(key: StreamFixtures.keys.server)
            var out: [StreamMessage] = []
            for piece in [Array(stream[..<cut]), Array(stream[cut...])] {
                deframer.append(piece)
                while let plaintext = try deframer.next() { out.append(try StreamMessage(plaintext: plaintext[...])) }
            }
            #expect(out == small, "cut at \(cut)")
        }
        // One byte at a time, through the generic entry.
        var deframer = StreamDeframer(key: StreamFixtures.keys.server)
        var out: [StreamMessage] = []
        for byte in stream {
            deframer.append(CollectionOfOne(byte))
            while let plaintext = try deframer.next() { out.append(try StreamMessage(plaintext: plaintext[...])) }
        }
        #expect(out == small)
        #expect(deframer.bufferedCount == 0)
    }

    @Test("Chunks cut twice, read after each or only after all, give the same frames; nothing is left over")
    func cutTwiceDrainedOrNot() async throws {
        var sealer = StreamFrameSealer(key: StreamFixtures.keys.server)
        let small: [StreamMessage] = [
            .start(size: 900, offset: 0), .data(StreamFixtures.state(300)[...]), .data(StreamFixtures.state(500)[...]),
            .error(.badRequest, message: "bye"),
        ]
        let stream = small.flatMap { sealer.seal($0) }
        for first in stride(from: 0, through: stream.count, by: 13) {
            for second in stride(from: first, through: stream.count, by: 29) {
                await Task.yield()  // a turn for other tests' tasks: see "Tests that compute" in docs/ARCHITECTURE.md
                let pieces = [Array(stream[..<first]), Array(stream[first..<second]), Array(stream[second...])]
                for drainEachTime in [true, false] {
                    var deframer = StreamDeframer(key: StreamFixtures.keys.server)
                    var out: [StreamMessage] = []
                    for (index, piece) in pieces.enumerated() {
                        deframer.append(piece)
                        guard drainEachTime || index == pieces.count - 1 else { continue }
                        while let plaintext = try deframer.next() { out.append(try StreamMessage(plaintext: plaintext[...])) }
                    }
                    #expect(out == small, "cut at \(first) and \(second), drained each time: \(drainEachTime)")
                    #expect(deframer.bufferedCount == 0)
                }
            }
        }
    }

    @Test("A length under 17 or over 65,552 is refused from its 4 bytes alone", arguments: [0, 1, 16, 65_553, 1 << 20, Int(UInt32.max)])
    func lengthOutOfRange(_ length: Int) {
        var deframer = StreamDeframer(key: StreamFixtures.keys.server)
        deframer.append([UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)])
        #expect(throws: StreamFrameError.badLength(length)) { try deframer.next() }
    }

    @Test("The limits themselves pass: 17 and 65,552")
    func lengthLimitsPass() throws {
        var sealer = StreamFrameSealer(key: StreamFixtures.keys.client)
        var deframer = StreamDeframer(key: StreamFixtures.keys.client)
        let smallest = sealer.seal([7])
        let largest = sealer.seal(StreamFixtures.state(StateStream.maximumPlaintext))
        #expect(smallest.count == 4 + 17 && largest.count == 4 + 65_552)
        deframer.append(smallest + largest)
        #expect(try deframer.next() == [7])
        #expect(try deframer.next()?.count == StateStream.maximumPlaintext)
    }

    @Test("Changing any byte of a frame never yields its plaintext")
    func corruptionOfAnyByte() throws {
        var sealer = StreamFrameSealer(key: StreamFixtures.keys.server)
        let frame = sealer.seal(.data(StreamFixtures.state(40)[...]))
        for index in frame.indices {
            var bad = frame
            bad[index] ^= 0x40
            var deframer = StreamDeframer(key: StreamFixtures.keys.server)
            deframer.append(bad)
            do {
                // A changed length either is out of range, waits for bytes that never come, or fails the tag.
                #expect(try deframer.next() == nil, "byte \(index)")
            } catch {
                let length = bad[0..<4].reduce(0) { $0 << 8 | Int($1) }
                #expect(error == .doesNotOpen(counter: 0) || error == .badLength(length), "byte \(index)")
            }
        }
    }

    @Test("A frame opens only under its own direction's key and its own number")
    func keyAndCounterBindFrames() throws {
        var sealer = StreamFrameSealer(key: StreamFixtures.keys.server)
        let first = sealer.seal(.start(size: 10, offset: 0))
        let second = sealer.seal(.data([1, 2][...]))

        var otherKey = StreamDeframer(key: StreamFixtures.keys.client)
        otherKey.append(first)
        #expect(throws: StreamFrameError.doesNotOpen(counter: 0)) { try otherKey.next() }

        var swapped = StreamDeframer(key: StreamFixtures.keys.server)
        swapped.append(second + first)
        #expect(throws: StreamFrameError.doesNotOpen(counter: 0)) { try swapped.next() }

        var replayed = StreamDeframer(key: StreamFixtures.keys.server)
        replayed.append(first + first)
        #expect(try replayed.next() != nil)
        #expect(throws: StreamFrameError.doesNotOpen(counter: 1)) { try replayed.next() }
    }

    @Test("Malformed plaintexts are named, not guessed at")
    func malformedPlaintexts() {
        let digest = [UInt8](repeating: 0, count: 32)
        let head: [UInt8] = [1] + [UInt8](repeating: 0, count: 16) + digest
        let cases: [([UInt8], StreamMessage.DecodeError)] = [
            ([], .malformed(type: 0, reason: "empty plaintext")),
            (head, .malformed(type: 1, reason: "a GET's activity id must be 1 to 255 bytes")),
            (head + [UInt8](repeating: 0x41, count: 256), .malformed(type: 1, reason: "a GET's activity id must be 1 to 255 bytes")),
            (head + [0xFF, 0xFE], .malformed(type: 1, reason: "the activity id is not UTF-8")),
            ([1, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0] + digest + [0x41], .malformed(type: 1, reason: "the offset is beyond any state")),
            ([2] + [UInt8](repeating: 0, count: 15), .malformed(type: 2, reason: "a START body is 16 bytes")),
            ([2] + [UInt8](repeating: 0, count: 17), .malformed(type: 2, reason: "a START body is 16 bytes")),
            ([3], .malformed(type: 3, reason: "a DATA frame carries 1 to 65,535 bytes")),
            ([3] + [UInt8](repeating: 0, count: 65_536), .malformed(type: 3, reason: "a DATA frame carries 1 to 65,535 bytes")),
            ([4], .malformed(type: 4, reason: "an ERROR has no code")),
            ([5, 0], .unknownType(5)),
            ([0], .unknownType(0)),
        ]
        for (plaintext, expected) in cases {
            #expect(throws: expected) { try StreamMessage(plaintext: plaintext[...]) }
        }
    }

    @Test("A GET carries a 255-byte id; an ERROR keeps at most 200 bytes of message, whole characters only")
    func boundaries() throws {
        let longest = String(repeating: "a", count: 255)
        let get = StreamMessage.get(activityID: longest, revision: Int.min, offset: Int.max, digest: Array(0..<32))
        #expect(get.plaintext.count == 1 + 48 + 255)
        #expect(try StreamMessage(plaintext: get.plaintext[...]) == get)

        let long = StreamMessage.error(.notFound, message: String(repeating: "é", count: 150))  // 300 bytes
        #expect(long.plaintext.count == 2 + 200)
        #expect(try StreamMessage(plaintext: long.plaintext[...]) == .error(.notFound, message: String(repeating: "é", count: 100)))

        // A received message is cut at 200 bytes and read leniently.
        let received: [UInt8] = [4, 9] + [UInt8](repeating: 0x62, count: 250) + [0xFF]
        #expect(try StreamMessage(plaintext: received[...]) == .error(StreamErrorCode(rawValue: 9), message: String(repeating: "b", count: 200)))
    }
}
