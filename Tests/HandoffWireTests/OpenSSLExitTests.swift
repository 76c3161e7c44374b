import Glibc
import Testing
@testable import HandoffWire

/// A process may end while another of its threads still seals, opens or frees a stream
/// cipher: OpenSSL must not have torn itself down under them (`OpenSSLProcess`).
@Suite("OpenSSL at the process's exit")
struct OpenSSLExitTests {
    @Test("A cipher made and used after exit has begun: the process still ends with its own status")
    func cipherAfterExitBegins() async {
        await #expect(processExitsWith: .exitCode(7)) {
            // Registered before OpenSSL is first used, so it runs after any handler OpenSSL
            // registers: where another thread's last frame would be when the process ends.
            atexit {
                let cipher = StreamCipher(key: [UInt8](repeating: 1, count: 32), sealing: true)
                OpenSSLExitTests.sealOne(cipher)
            }
            OpenSSLExitTests.sealOne(StreamCipher(key: [UInt8](repeating: 2, count: 32), sealing: true))
            exit(7)
        }
    }

    /// Seals five bytes under frame 1's nonce.
    static func sealOne(_ cipher: StreamCipher) {
        let plaintext: [UInt8] = Array("hello".utf8)
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        plaintext.withUnsafeBytes { body in
            out.withUnsafeMutableBytes { out in
                cipher.seal(
                    counter: 1, associated: UnsafeRawBufferPointer(start: nil, count: 0),
                    head: UnsafeRawBufferPointer(start: nil, count: 0), body: body, into: out.baseAddress!)
            }
        }
    }
}
