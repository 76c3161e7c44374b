import Foundation
import Testing
@testable import HandoffWire

/// A process may end while another of its threads still seals, opens or frees a stream
/// cipher: OpenSSL must not have torn itself down under them (`OpenSSLProcess`).
///
/// The test runs this test binary again, with only this test and `BATON_OPENSSL_EXIT_CHILD`
/// set: there it ends the process itself. (Swift Testing's own exit tests wait for any child
/// of the process, and on this toolchain one of them once waited forever.)
@Suite("OpenSSL at the process's exit", .timeLimit(.minutes(1)))
struct OpenSSLExitTests {
    static let childVariable = "BATON_OPENSSL_EXIT_CHILD"

    @Test("A cipher made and used after exit has begun: the process still ends with its own status")
    func cipherAfterExitBegins() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] == "1" {
            // Registered before OpenSSL is first used, so it runs after any handler OpenSSL
            // registers: where another thread's last frame would be when the process ends.
            atexit {
                OpenSSLExitTests.sealOne(StreamCipher(key: [UInt8](repeating: 1, count: 32), sealing: true))
            }
            Self.sealOne(StreamCipher(key: [UInt8](repeating: 2, count: 32), sealing: true))
            exit(7)
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "OpenSSLExitTests"]
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: "1"]) { $1 }
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        child.waitUntilExit()
        // Without `OpenSSLProcess`, the child ends by SIGSEGV in its atexit handler.
        #expect(child.terminationReason == .exit && child.terminationStatus == 7,
                "the child ended by \(child.terminationReason == .exit ? "exit" : "signal") \(child.terminationStatus)")
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
