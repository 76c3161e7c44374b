#if canImport(Glibc)
import Glibc
#endif
import BatonDoctor
import FoundationEssentials
import Handoff
import HandoffWire

/// The group key read from standard input, for `baton key --import -`: a key typed or pasted
/// there, or piped from another machine, never appears in a command line (shell history,
/// `ps`).
public enum KeyInput {
    /// How another machine gets in (pairing: the key alone lets no machine in), and how to copy
    /// the key to a machine that is in already without putting it on a command line.
    public static let howToCopy = """
        pair them: `baton pair` here, `baton pair --join` there
        (the key alone lets no machine in: a machine hears only the devices it is paired with or introduced to).
        To give this key to a machine that is paired already, run there
          baton key --import -
        and paste the key, or send it from here:
          baton key | ssh OTHER baton key --import -
        """

    /// The key on the first line of `descriptor` (white space around it ignored). Reads one
    /// line at most, and no more than `limit` bytes of it; says what is wrong otherwise.
    public static func read(from descriptor: Int32 = STDIN_FILENO, limit: Int = 4096) throws -> GroupKey {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(descriptor, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                throw CommandFailure("Cannot read the key from standard input: \(String(cString: strerror(errno))).")
            }
            if n == 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
            guard line.count <= limit else {
                throw CommandFailure("The first line of standard input is over \(limit) bytes; a key is 44 characters of base64.")
            }
        }
        let text = String(decoding: line, as: UTF8.self).trimmed()
        guard !text.isEmpty else {
            throw CommandFailure("""
                No key on standard input. Paste it after `baton key --import -`, or send it from the machine that has it:
                  baton key | ssh \(DoctorInterface.addressForOthers()) baton key --import -
                """)
        }
        return try GroupKey(base64: text, source: "standard input")
    }
}
