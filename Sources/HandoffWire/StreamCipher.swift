import COpenSSL

/// ChaCha20-Poly1305 (RFC 8439) for one direction of the state stream, through OpenSSL's EVP
/// interface, reading from and writing into buffers the caller owns.
///
/// swift-crypto's `ChaChaPoly` gives the same bytes but only as new `Data`: every `seal`
/// allocates its output and then joins nonce, ciphertext and tag into one more, and `open`
/// takes nonce, ciphertext and tag joined and returns new `Data`. At 65,536-byte frames that
/// cost more than the cipher itself (BENCHMARKS.md, "The stream (issue 18)"). Here one
/// context is set up with the key once; each frame only sets its nonce.
///
/// Not for sharing across threads: the frame codecs own one each and make their own when
/// copied (they check `isKnownUniquelyReferenced` before each use).
final class StreamCipher: @unchecked Sendable {
    private let context: OpaquePointer
    private let sealing: Bool

    static let nonceLength = 12

    /// A context for `key` (32 bytes) that seals when `sealing`, else opens.
    init(key: [UInt8], sealing: Bool) {
        precondition(key.count == 32, "a ChaCha20-Poly1305 key is 32 bytes")
        _ = OpenSSLProcess.prepared
        // Allocation failures are the only way these fail with a valid key and cipher.
        guard let context = EVP_CIPHER_CTX_new() else { fatalError("OpenSSL could not allocate a cipher context") }
        self.context = context
        self.sealing = sealing
        let ready = key.withUnsafeBufferPointer { key in
            EVP_CipherInit_ex(context, EVP_chacha20_poly1305(), nil, key.baseAddress, nil, sealing ? 1 : 0) == 1
        }
        precondition(ready, "OpenSSL refused the ChaCha20-Poly1305 key")
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Calls `body` with frame `counter`'s nonce: four zero bytes, then the counter as a 64-bit
    /// big-endian integer.
    private static func withNonce<R>(_ counter: UInt64, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        var nonce: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &nonce) { raw in
            raw.storeBytes(of: counter.bigEndian, toByteOffset: 4, as: UInt64.self)
            return body(raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Seals `head` followed by `body` (the plaintext, in two parts so that neither is copied to
    /// join them) under frame `counter`'s nonce, authenticating `associated`, writing the
    /// ciphertext to `out` and the 16-byte tag right after it. `out` has room for both parts
    /// and the tag; either part may be empty.
    func seal(
        counter: UInt64, associated: UnsafeRawBufferPointer, head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawPointer
    ) {
        precondition(sealing, "this context opens")
        var written = 0
        let sealed = Self.withNonce(counter) { nonce -> Bool in
            guard EVP_CipherInit_ex(context, nil, nil, nil, nonce, 1) == 1 else { return false }
            var length: Int32 = 0
            guard update(nil, &length, associated) else { return false }
            guard update(out, &length, head) else { return false }
            written = head.isEmpty ? 0 : Int(length)
            guard update(out.advanced(by: written), &length, body) else { return false }
            written += body.isEmpty ? 0 : Int(length)
            guard EVP_CipherFinal_ex(context, out.advanced(by: written).assumingMemoryBound(to: UInt8.self), &length) == 1
            else { return false }
            written += Int(length)
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, 16, out.advanced(by: written)) == 1
        }
        // Sealing with a valid key, nonce and lengths cannot fail but for a broken library.
        precondition(sealed, "OpenSSL failed to seal a frame")
    }

    /// Opens `ciphertext` and its 16-byte `tag` under frame `counter`'s nonce, authenticating
    /// `associated`, into `out` (room for `ciphertext.count` bytes). False when the tag does
    /// not verify; `out` then holds bytes that must not be used.
    func open(
        counter: UInt64, associated: UnsafeRawBufferPointer, ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawPointer
    ) -> Bool {
        precondition(!sealing, "this context seals")
        precondition(tag.count == 16, "a Poly1305 tag is 16 bytes")
        return Self.withNonce(counter) { nonce -> Bool in
            guard EVP_CipherInit_ex(context, nil, nil, nil, nonce, 0) == 1 else { return false }
            var length: Int32 = 0
            guard update(nil, &length, associated) else { return false }
            var written = 0
            if !ciphertext.isEmpty {
                guard update(out, &length, ciphertext) else { return false }
                written = Int(length)
            }
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, 16, UnsafeMutableRawPointer(mutating: tag.baseAddress!)) == 1
            else { return false }
            return EVP_CipherFinal_ex(context, out.advanced(by: written).assumingMemoryBound(to: UInt8.self), &length) == 1
        }
    }

    /// One EVP update: `input` in, its output at `out` (nil for associated data).
    private func update(_ out: UnsafeMutableRawPointer?, _ length: inout Int32, _ input: UnsafeRawBufferPointer) -> Bool {
        guard let base = input.baseAddress, input.count > 0 else { return true }
        return EVP_CipherUpdate(
            context, out?.assumingMemoryBound(to: UInt8.self), &length, base.assumingMemoryBound(to: UInt8.self),
            Int32(input.count)) == 1
    }
}
