#if canImport(Glibc)
import Glibc
#endif
import Foundation
import BatonDoctor
import Handoff
import HandoffCLI
import Testing
import HandoffWire

/// `baton key --import -`: the key from standard input, one line, white space trimmed.
@Suite("Reading the key from standard input")
struct KeyInputTests {
    /// A pipe holding `bytes`, its write end closed; the caller closes the read end.
    func pipe(holding bytes: [UInt8], close closeWriter: Bool = true) throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(Glibc.pipe(&fds) == 0)
        let written = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        if closeWriter { close(fds[1]) }
        return (fds[0], fds[1])
    }

    func rest(of fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return String(decoding: buffer[..<max(0, n)], as: UTF8.self)
    }

    @Test("The first line, trimmed, is the key; nothing after it is read")
    func firstLine() throws {
        let key = GroupKey.random()
        let fds = try pipe(holding: Array("  \t\(key.base64)  \r\nnot read\n".utf8))
        defer { close(fds.read) }
        #expect(try KeyInput.read(from: fds.read) == key)
        #expect(rest(of: fds.read) == "not read\n")
    }

    @Test("A key without a newline at the end, as `printf %s` pipes it, is read too")
    func noNewline() throws {
        let key = GroupKey.random()
        let fds = try pipe(holding: Array(key.base64.utf8))
        defer { close(fds.read) }
        #expect(try KeyInput.read(from: fds.read) == key)
    }

    @Test("Nothing, a long line or a malformed key is refused, saying what a key is and how to send one")
    func refused() throws {
        let empty = try pipe(holding: Array("   \n".utf8))
        defer { close(empty.read) }
        let none = #expect(throws: CommandFailure.self) { try KeyInput.read(from: empty.read) }
        #expect(none?.description.hasPrefix("No key on standard input. Paste it after `baton key --import -`") == true)
        // The hint names this machine by an address the other one can reach, not a placeholder.
        #expect(none?.description.contains("baton key | ssh \(DoctorInterface.addressForOthers()) baton key --import -") == true)
        #expect(none?.description.contains("THIS-MACHINE") == false)

        let long = try pipe(holding: Array(repeating: UInt8(ascii: "A"), count: 100))
        defer { close(long.read) }
        let tooLong = #expect(throws: CommandFailure.self) { try KeyInput.read(from: long.read, limit: 50) }
        #expect(tooLong?.description == "The first line of standard input is over 50 bytes; a key is 44 characters of base64.")

        let bad = try pipe(holding: Array("AAAA\n".utf8))
        defer { close(bad.read) }
        #expect(throws: GroupKey.LoadError.malformed(source: "standard input", reason: "it decodes to 3 bytes, not 32")) {
            try KeyInput.read(from: bad.read)
        }
    }

    @Test("Every hint to copy a key suggests standard input, never a key on the command line")
    func hints() {
        #expect(KeyInput.howToCopy.contains("baton key --import -"))
        #expect(KeyInput.howToCopy.contains("baton key | ssh OTHER baton key --import -"))
        let malformed = GroupKey.LoadError.malformed(source: "x", reason: "y").description
        #expect(malformed.contains("baton key --import -"))
        #expect(!malformed.contains("--import KEY"))
        // The stream's failed proof is about devices since protocol 3, not keys: no key hint at all.
        #expect(!StreamFailure.authenticationFailed.description.contains("--import"))
    }
}
