import Crypto
import Foundation

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
func streamNonceBytes(_ counter: UInt64) -> [UInt8] {
    var bytes: [UInt8] = [0, 0, 0, 0]
    bytes.reserveCapacity(12)
    StreamMessage.appendBigEndian(counter, to: &bytes)
    return bytes
}

/// The nonce of frame `counter`, as the AEAD takes it.
func streamNonce(_ counter: UInt64) -> ChaChaPoly.Nonce {
    // 12 bytes are always a valid ChaChaPoly nonce.
    try! ChaChaPoly.Nonce(data: streamNonceBytes(counter))
}

/// Seals the frames of one direction: `L ‖ ChaCha20-Poly1305(plaintext)`, with the 4 length
/// bytes as associated data and the frame's number in this direction as the nonce.
public struct StreamFrameSealer: Sendable {
    private let key: [UInt8]
    /// The number the next frame gets; the first is 0.
    public private(set) var counter: UInt64 = 0

    public init(key: [UInt8]) { self.key = key }

    /// One sealed frame in its three parts, as the AEAD returns them: a writer that copies them
    /// into its own buffer (a socket's) need not join them into an array first.
    public struct Sealed: Sendable {
        /// The 4 length bytes.
        public let length: [UInt8]
        public let ciphertext: Data
        public let tag: Data

        /// Bytes of the whole frame.
        public var count: Int { 4 + ciphertext.count + tag.count }

        /// The whole frame.
        public var bytes: [UInt8] {
            var frame: [UInt8] = []
            frame.reserveCapacity(count)
            frame.append(contentsOf: length)
            frame.append(contentsOf: ciphertext)
            frame.append(contentsOf: tag)
            return frame
        }
    }

    /// The whole frame for `plaintext` (1 to 65,536 bytes).
    public mutating func seal(_ plaintext: [UInt8]) -> [UInt8] { sealParts(plaintext).bytes }

    /// The frame for `plaintext` (1 to 65,536 bytes), in parts.
    public mutating func sealParts(_ plaintext: [UInt8]) -> Sealed {
        precondition((1...StateStream.maximumPlaintext).contains(plaintext.count), "a frame holds 1 to 65,536 bytes")
        var length: [UInt8] = []
        StreamMessage.appendBigEndian(UInt32(plaintext.count + StateStream.tagLength), to: &length)
        // A 12-byte nonce and a 32-byte key cannot be refused.
        let box = try! ChaChaPoly.seal(plaintext, using: SymmetricKey(data: key), nonce: streamNonce(counter), authenticating: length)
        counter += 1
        return Sealed(length: length, ciphertext: box.ciphertext, tag: box.tag)
    }

    /// The whole frame for `message`.
    public mutating func seal(_ message: StreamMessage) -> [UInt8] { seal(message.plaintext) }
}

/// Takes one direction's bytes in chunks split anywhere and gives back the plaintext of each
/// whole frame, in order. A length outside 17–65,552 is refused as soon as its 4 bytes are
/// in, before the body is waited for; after any error the deframer is spent.
///
/// Whole frames are opened where they lie in the chunk handed in. A frame cut by the end of a
/// chunk is kept over, and only the bytes that complete it are copied from the next chunk,
/// whose other frames are again opened where they lie: a large transfer is not copied on the
/// way in, whatever the sizes of its chunks.
public struct StreamDeframer: Sendable {
    private let key: [UInt8]
    /// The bytes being read: a chunk as handed in, or a frame kept over and completed.
    private var buffer: [UInt8] = []
    private var start = 0
    /// The chunk that completed a kept-over frame, read from `queuedStart` once `buffer` is.
    private var queued: [UInt8] = []
    private var queuedStart = 0
    /// The number the next frame must have been sealed with.
    public private(set) var counter: UInt64 = 0

    public init(key: [UInt8]) { self.key = key }

    /// Bytes held that do not yet make a whole frame.
    public var bufferedCount: Int { buffer.count - start + queued.count - queuedStart }

    /// Adds bytes as they arrived.
    public mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if start == buffer.count, queued.isEmpty {
            buffer = bytes  // nothing held over: use the chunk itself
            start = 0
            return
        }
        if !queued.isEmpty {
            // Appended again before the last chunk was read: join them (not the usual path).
            compact()
            buffer.append(contentsOf: queued[queuedStart...])
            queued = []
            queuedStart = 0
            buffer.append(contentsOf: bytes)
            return
        }
        compact()
        // Complete the kept-over frame from the head of the chunk; the rest of the chunk is read in place.
        let needed = bytesToComplete(after: bytes)
        guard needed > 0, needed < bytes.count else { return buffer.append(contentsOf: bytes) }
        buffer.append(contentsOf: bytes[..<needed])
        queued = bytes
        queuedStart = needed
    }

    /// Adds bytes as they arrived.
    public mutating func append(_ bytes: some Collection<UInt8>) { append(Array(bytes)) }

    /// How many bytes of `next` make the frame begun in `buffer` whole: 0 when `buffer` holds
    /// a whole frame already, all of `next` when its length prefix is not yet in or is out of
    /// range (to be refused by `next()`).
    private func bytesToComplete(after next: [UInt8]) -> Int {
        let held = buffer.count
        guard held + next.count >= 4 else { return next.count }
        var length = 0
        for index in 0..<4 { length = length << 8 | Int(index < held ? buffer[index] : next[index - held]) }
        guard (StateStream.minimumFrameLength...StateStream.maximumFrameLength).contains(length) else { return next.count }
        return max(0, 4 + length - held)
    }

    /// The plaintext of the next whole frame, or nil until more bytes arrive.
    public mutating func next() throws(StreamFrameError) -> [UInt8]? {
        if start == buffer.count, !queued.isEmpty {
            buffer = queued
            start = queuedStart
            queued = []
            queuedStart = 0
        }
        let available = buffer.count - start
        guard available >= 4 else { return nil }
        var length = 0
        for byte in buffer[start..<(start + 4)] { length = length << 8 | Int(byte) }
        guard (StateStream.minimumFrameLength...StateStream.maximumFrameLength).contains(length) else {
            throw .badLength(length)
        }
        guard available >= 4 + length else { return nil }
        let sealedStart = start + 4
        let plaintext: [UInt8]
        do {
            // nonce ‖ ciphertext ‖ tag in one buffer of its exact size: the AEAD's own joining of
            // the three parts copies the frame twice, growing the buffer.
            var combined = Data(capacity: 12 + length)
            combined.append(contentsOf: streamNonceBytes(counter))
            buffer.withUnsafeBufferPointer {
                combined.append(UnsafeBufferPointer(rebasing: $0[sealedStart..<(sealedStart + length)]))
            }
            let opened = try ChaChaPoly.open(
                ChaChaPoly.SealedBox(combined: combined), using: SymmetricKey(data: key), authenticating: buffer[start..<sealedStart])
            plaintext = opened.withUnsafeBytes { Array($0) }
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
