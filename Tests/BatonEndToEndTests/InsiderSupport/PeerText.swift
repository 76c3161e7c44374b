import Foundation

/// What no output of Baton may carry from a peer (issue 9): a terminal, a log viewer or a JSON
/// reader would act on it, or it would hide or disguise text.
enum PeerText {
    /// Whether `scalar` may never appear in an output: C0 controls but the newline, DEL, C1
    /// controls (U+0080–U+009F, the 8-bit CSI U+009B among them), the line and paragraph
    /// separators U+2028/2029, the bidi embeddings and overrides U+202A–U+202E and isolates
    /// U+2066–U+2069, the zero-width space U+200B, and the tag characters U+E0000–U+E007F.
    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: false
        case 0x00...0x1F, 0x7F, 0x80...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200B,
            0xE0000...0xE007F:
            true
        default: false
        }
    }

    /// Whether a terminal shows `scalar` as nothing (or as a blank), so that a name holding it looks
    /// like the name without it: zero-width spaces, joiners and marks, word joiner and invisible
    /// operators, the BOM, soft hyphen, combining grapheme joiner, Mongolian vowel separator, the
    /// Hangul fillers, and tag characters.
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x200B...0x200F, 0x2060...0x2064, 0xFEFF, 0x00AD, 0x034F, 0x180E, 0x115F, 0x1160, 0x3164, 0xFFA0,
            0xE0000...0xE007F:
            true
        default: false
        }
    }

    /// The forbidden scalars in `bytes` (read as UTF-8), each with a little context, escaped, for
    /// messages; empty when there are none. At most `limit` of them.
    static func forbidden(in bytes: Data, limit: Int = 8) -> [String] {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var found: [String] = []
        for (index, scalar) in scalars.enumerated() where isForbidden(scalar) {
            let context = scalars[max(0, index - 24)..<min(scalars.count, index + 8)]
            found.append(String(format: "U+%04X in \"", scalar.value) + escaped(context) + "\"")
            if found.count >= limit { break }
        }
        return found
    }

    /// How many forbidden scalars `bytes` holds.
    static func forbiddenCount(in bytes: Data) -> Int {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.filter(isForbidden).count
    }

    /// Scalars outside printable ASCII as `\u{…}`, for messages that must not carry them raw.
    static func escaped(_ scalars: some Sequence<Unicode.Scalar>) -> String {
        scalars.map { $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
    }
}

/// A program in a lab host whose standard output goes to a file, read back as bytes: what it
/// printed exactly, control characters and all. (`LabProcess` reads lines into strings; this
/// keeps every byte, and for the expansion floods writes nothing the test must hold.)
final class FileOutputProcess {
    let process: LabProcess
    /// Where standard output goes (`/dev/null` for a program whose output is not wanted).
    let path: String

    /// Starts `arguments` in host `host` with standard output to `path`.
    init(_ name: String, lab: Lab, host: Int, _ arguments: [String], to path: String) throws {
        self.path = path
        // sh replaces itself with the program: the pid is the program's.
        process = try LabProcess(
            name, lab: lab, host: host, ["/bin/sh", "-c", #"out=$1; shift; exec "$@" > "$out""#, "sh", path] + arguments)
    }

    var pid: pid_t { process.pid }

    /// Everything written so far.
    var bytes: Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

    /// The JSON objects among the lines written so far.
    var jsonLines: [[String: Any]] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Waits until the output satisfies `condition`.
    @discardableResult
    func waitForOutput(_ description: String, timeout: Double = 10, where condition: (Data) -> Bool) throws -> Data {
        try Wait.until(description, timeout: timeout, interval: 0.05, lastSeen: {
            PeerText.escaped(String(decoding: self.bytes.suffix(1200), as: UTF8.self).unicodeScalars)
        }) {
            let now = bytes
            return condition(now) ? now : nil
        }
    }

    func stop() { process.stop() }
}
