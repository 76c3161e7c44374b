
/// Why the bytes of one direction stopped making frames; either ends the connection.
public enum StreamFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A length prefix outside 17–65,552.
    case badLength(Int)
    /// A frame whose tag did not verify under this direction's key and counter.
    case doesNotOpen(counter: UInt64)

    public var description: String {
        switch self {
        case .badLength(let length):
            "a frame length of \(length) bytes is outside \(StateStream.minimumFrameLength)–\(StateStream.maximumFrameLength)"
        case .doesNotOpen(let counter):
            "frame \(counter) did not open (wrong key, or bytes changed on the way)"
        }
    }
}

/// Seals the frames of one direction: `L ‖ ChaCha20-Poly1305(plaintext)`, with the 4 length
/// bytes as associated data and the frame's number in this direction as the nonce.
///
/// `seal(head:body:into:)` writes a whole frame into memory the caller owns (a socket's
/// buffer), reading the plaintext where it lies: a DATA frame's type byte and a slice of the
/// state are sealed without being joined, and nothing is allocated per frame.
public struct StreamFrameSealer: Sendable {
    private let key: [UInt8]
    private var cipher: StreamCipher?
    /// The number the next frame gets; the first is 0.
    public private(set) var counter: UInt64 = 0

    public init(key: [UInt8]) { self.key = key }

    /// Bytes of the whole frame that carries `plaintextCount` bytes: the length, the
    /// ciphertext and the tag.
    public static func frameLength(plaintextCount: Int) -> Int { 4 + plaintextCount + StateStream.tagLength }

    /// Seals the frame whose plaintext is `head` followed by `body` (1 to 65,536 bytes in
    /// all) into the start of `out`, which has room for `frameLength(plaintextCount:)` bytes.
    /// Returns the bytes written.
    public mutating func seal(
        head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer
    ) -> Int {
        let plaintextCount = head.count + body.count
        precondition((1...StateStream.maximumPlaintext).contains(plaintextCount), "a frame holds 1 to 65,536 bytes")
        let frameLength = Self.frameLength(plaintextCount: plaintextCount)
        precondition(out.count >= frameLength, "the frame needs \(frameLength) bytes")
        out.storeBytes(of: UInt32(plaintextCount + StateStream.tagLength).bigEndian, toByteOffset: 0, as: UInt32.self)
        if !isKnownUniquelyReferenced(&cipher) { cipher = StreamCipher(key: key, sealing: true) }
        cipher!.seal(
            counter: counter, associated: UnsafeRawBufferPointer(rebasing: out[..<4]), head: head, body: body,
            into: out.baseAddress! + 4)
        counter += 1
        return frameLength
    }

    /// The whole frame for `plaintext` (1 to 65,536 bytes).
    public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        precondition((1...StateStream.maximumPlaintext).contains(plaintext.count), "a frame holds 1 to 65,536 bytes")
        let length = Self.frameLength(plaintextCount: plaintext.count)
        return [UInt8](unsafeUninitializedCapacity: length) { out, count in
            count = plaintext.withUnsafeBytes { plaintext in
                seal(head: UnsafeRawBufferPointer(start: nil, count: 0), body: plaintext, into: UnsafeMutableRawBufferPointer(out))
            }
        }
    }

    /// The whole frame for `message`.
    public mutating func seal(_ message: StreamMessage) -> [UInt8] { seal(message.plaintext) }
}

/// Takes one direction's bytes in chunks split anywhere and opens each whole frame, in order,
/// into a plaintext buffer of its own that every frame reuses. A length outside 17–65,552 is
/// refused as soon as its 4 bytes are in, before the body is waited for; after any error the
/// deframer is spent.
///
/// Whole frames are opened where they lie in the chunk handed in. A frame cut by the end of a
/// chunk is copied over, and only the bytes that complete it are copied from the next chunk,
/// whose other frames are again opened where they lie: a large transfer is not copied on the
/// way in, whatever the sizes of its chunks. Once `openNext()` returns false the deframer
/// holds no reference to the chunks handed in, so their buffers can be used again.
public struct StreamDeframer: Sendable {
    private let key: [UInt8]
    private var cipher: StreamCipher?
    /// The chunk being read, from `start`.
    private var chunk: [UInt8] = []
    private var start = 0
    /// A frame cut by the end of a chunk, being completed; its room is kept.
    private var partial: [UInt8] = []
    /// The plaintext of the frame opened last: `plaintextCount` bytes, in room for the largest.
    private var plaintext: [UInt8] = []
    public private(set) var plaintextCount = 0
    /// The number the next frame must have been sealed with.
    public private(set) var counter: UInt64 = 0

    public init(key: [UInt8]) { self.key = key }

    /// Bytes held that do not yet make a whole frame.
    public var bufferedCount: Int { partial.count + chunk.count - start }

    /// Adds bytes as they arrived.
    public mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if start < chunk.count {
            // Appended again before the last chunk was read out (not the usual path): join
            // what is held and the new bytes into one chunk.
            var joined = partial
            joined.append(contentsOf: chunk[start...])
            joined.append(contentsOf: bytes)
            partial.removeAll(keepingCapacity: true)
            chunk = joined
        } else {
            chunk = bytes
        }
        start = 0
    }

    /// Adds bytes as they arrived.
    public mutating func append(_ bytes: some Collection<UInt8>) { append(Array(bytes)) }

    /// Opens the next whole frame into the deframer's plaintext buffer (read it with
    /// `withPlaintext`), or returns false until more bytes arrive.
    public mutating func openNext() throws(StreamFrameError) -> Bool {
        if !partial.isEmpty {
            guard let length = try completePartial() else { return false }
            let cipher = preparedCipher()
            let opened = partial.withUnsafeBytes { frame in
                Self.open(frame, length: length, cipher: cipher, counter: counter, into: &plaintext)
            }
            try opening(opened, length: length)
            partial.removeAll(keepingCapacity: true)
            return true
        }
        let available = chunk.count - start
        if available >= 4 {
            let length = chunk.withUnsafeBytes { Self.length(at: start, in: $0) }
            guard Self.isValid(length) else { throw .badLength(length) }
            if available >= 4 + length {
                let frameStart = start
                let cipher = preparedCipher()
                let opened = chunk.withUnsafeBytes { raw in
                    Self.open(
                        UnsafeRawBufferPointer(rebasing: raw[frameStart..<(frameStart + 4 + length)]), length: length,
                        cipher: cipher, counter: counter, into: &plaintext)
                }
                try opening(opened, length: length)
                start += 4 + length
                if start == chunk.count { releaseChunk() }
                return true
            }
        }
        // What is left is the start of a frame: keep it, and let the chunk go.
        if available > 0 { partial.append(contentsOf: chunk[start...]) }
        releaseChunk()
        return false
    }

    /// Calls `body` with the plaintext of the frame `openNext()` opened last.
    public func withPlaintext<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try plaintext.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<plaintextCount])) }
    }

    /// The plaintext of the next whole frame, or nil until more bytes arrive.
    public mutating func next() throws(StreamFrameError) -> [UInt8]? {
        guard try openNext() else { return nil }
        return withPlaintext { Array($0) }
    }

    /// Moves bytes from the chunk into `partial` until it holds a whole frame; its length, or
    /// nil when the chunk ran out first.
    private mutating func completePartial() throws(StreamFrameError) -> Int? {
        if partial.count < 4 {
            let needed = min(4 - partial.count, chunk.count - start)
            partial.append(contentsOf: chunk[start..<(start + needed)])
            start += needed
            guard partial.count == 4 else {
                releaseChunk()
                return nil
            }
        }
        let length = partial.withUnsafeBytes { Self.length(at: 0, in: $0) }
        guard Self.isValid(length) else { throw .badLength(length) }
        let needed = min(4 + length - partial.count, chunk.count - start)
        if needed > 0 {
            if partial.capacity < 4 + length { partial.reserveCapacity(StateStream.maximumFrameLength + 4) }
            partial.append(contentsOf: chunk[start..<(start + needed)])
            start += needed
        }
        if start == chunk.count { releaseChunk() }
        return partial.count == 4 + length ? length : nil
    }

    /// This direction's cipher, made on first use and again when the deframer was copied.
    private mutating func preparedCipher() -> StreamCipher {
        if plaintext.isEmpty { plaintext = [UInt8](repeating: 0, count: StateStream.maximumPlaintext) }
        if !isKnownUniquelyReferenced(&cipher) { cipher = StreamCipher(key: key, sealing: false) }
        return cipher!
    }

    /// Opens one whole frame (its 4 length bytes and `length` sealed bytes) into `plaintext`;
    /// false when it does not open.
    private static func open(
        _ frame: UnsafeRawBufferPointer, length: Int, cipher: StreamCipher, counter: UInt64, into plaintext: inout [UInt8]
    ) -> Bool {
        let textLength = length - StateStream.tagLength
        return plaintext.withUnsafeMutableBytes { out in
            cipher.open(
                counter: counter, associated: UnsafeRawBufferPointer(rebasing: frame[..<4]),
                ciphertext: UnsafeRawBufferPointer(rebasing: frame[4..<(4 + textLength)]),
                tag: UnsafeRawBufferPointer(rebasing: frame[(4 + textLength)..<(4 + length)]), into: out.baseAddress!)
        }
    }

    /// Counts a frame that opened; throws for one that did not.
    private mutating func opening(_ opened: Bool, length: Int) throws(StreamFrameError) {
        guard opened else {
            plaintextCount = 0
            throw .doesNotOpen(counter: counter)
        }
        plaintextCount = length - StateStream.tagLength
        counter += 1
    }

    private mutating func releaseChunk() {
        chunk = []
        start = 0
    }

    private static func length(at offset: Int, in raw: UnsafeRawBufferPointer) -> Int {
        Int(UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    private static func isValid(_ length: Int) -> Bool {
        (StateStream.minimumFrameLength...StateStream.maximumFrameLength).contains(length)
    }
}
