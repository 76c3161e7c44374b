import Crypto

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

/// The nonce of frame `counter`: four zero bytes, then the counter as a 64-bit big-endian integer.
func streamNonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
    var bytes: [UInt8] = [0, 0, 0, 0]
    bytes.reserveCapacity(12)
    StreamMessage.appendBigEndian(counter, to: &bytes)
    // 12 bytes are always a valid ChaChaPoly nonce.
    return try! ChaChaPoly.Nonce(data: bytes)
}

/// Seals the frames of one direction: `L ‖ ChaCha20-Poly1305(plaintext)`, with the 4 length
/// bytes as associated data and the frame's number in this direction as the nonce.
public struct StreamFrameSealer: Sendable {
    private let key: [UInt8]
    /// The number the next frame gets; the first is 0.
    public private(set) var counter: UInt64 = 0

    public init(key: [UInt8]) { self.key = key }

    /// The whole frame for `plaintext` (1 to 65,536 bytes).
    public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        precondition((1...StateStream.maximumPlaintext).contains(plaintext.count), "a frame holds 1 to 65,536 bytes")
        let length = UInt32(plaintext.count + StateStream.tagLength)
        var frame: [UInt8] = []
        frame.reserveCapacity(4 + Int(length))
        StreamMessage.appendBigEndian(length, to: &frame)
        // A 12-byte nonce and a 32-byte key cannot be refused.
        let box = try! ChaChaPoly.seal(
            plaintext, using: SymmetricKey(data: key), nonce: streamNonce(counter), authenticating: frame)
        frame.append(contentsOf: box.ciphertext)
        frame.append(contentsOf: box.tag)
        counter += 1
        return frame
    }

    /// The whole frame for `message`.
    public mutating func seal(_ message: StreamMessage) -> [UInt8] { seal(message.plaintext) }
}

/// Takes one direction's bytes in chunks split anywhere and gives back the plaintext of each
/// whole frame, in order. A length outside 17–65,552 is refused as soon as its 4 bytes are
/// in, before the body is waited for; after any error the deframer is spent.
///
/// Whole frames are opened where they lie in the chunk handed in; only a frame cut by the end
/// of a chunk is kept over for the next one, so a large transfer is not copied on the way in.
public struct StreamDeframer: Sendable {
    private let key: [UInt8]
    private var buffer: [UInt8] = []
    private var start = 0
    /// The number the next frame must have been sealed with.
    public private(set) var counter: UInt64 = 0

    public init(key: [UInt8]) { self.key = key }

    /// Bytes held that do not yet make a whole frame.
    public var bufferedCount: Int { buffer.count - start }

    /// Adds bytes as they arrived.
    public mutating func append(_ bytes: [UInt8]) {
        if start == buffer.count {
            buffer = bytes  // nothing held over: use the chunk itself
            start = 0
        } else {
            compact()
            buffer.append(contentsOf: bytes)
        }
    }

    /// Adds bytes as they arrived.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The plaintext of the next whole frame, or nil until more bytes arrive.
    public mutating func next() throws(StreamFrameError) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= 4 else { return nil }
        var length = 0
        for byte in buffer[start..<(start + 4)] { length = length << 8 | Int(byte) }
        guard (StateStream.minimumFrameLength...StateStream.maximumFrameLength).contains(length) else {
            throw .badLength(length)
        }
        guard available >= 4 + length else { return nil }
        let sealedStart = start + 4
        let tagStart = sealedStart + length - StateStream.tagLength
        let plaintext: [UInt8]
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: streamNonce(counter), ciphertext: buffer[sealedStart..<tagStart],
                tag: buffer[tagStart..<(sealedStart + length)])
            plaintext = Array(
                try ChaChaPoly.open(box, using: SymmetricKey(data: key), authenticating: buffer[start..<sealedStart]))
        } catch {
            throw .doesNotOpen(counter: counter)
        }
        start = sealedStart + length
        counter += 1
        return plaintext
    }

    /// Drops the bytes already taken, keeping the rest.
    private mutating func compact() {
        guard start > 0 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeFirst(start)
        }
        start = 0
    }
}
