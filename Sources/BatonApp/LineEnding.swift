/// How a file's lines end on disk. The editor's text always has `\n` between lines; a CRLF
/// file's `\r\n` become `\n` when it is opened and `\r\n` again when it is saved, so a file
/// that is opened, edited and saved keeps its bytes apart from the edit.
///
/// A file is CRLF only when every `\n` in it follows a `\r` (and there is at least one). A file
/// with mixed endings is kept as LF: its `\r` stay in their lines (shown as ␍) and are written
/// back as they were, so nothing is converted behind the person's back.
public enum LineEnding: String, Equatable, Sendable {
    /// `\n`, as on Unix.
    case lf
    /// `\r\n`, as on DOS and Windows; the status bar says `DOS`.
    case crlf

    /// The style of `bytes` (a file's contents) and the text the editor holds for it
    /// (ill-formed UTF-8 repaired).
    public static func decode(_ bytes: [UInt8]) -> (text: String, ending: LineEnding) {
        let (kept, ending) = lines(of: bytes)
        return (String(decoding: kept ?? bytes, as: UTF8.self), ending)
    }

    /// As `decode`, or nil when `bytes` are not UTF-8: one pass that validates and copies,
    /// for a file being opened (16 MB of it).
    public static func decode(validating bytes: [UInt8]) -> (text: String, ending: LineEnding)? {
        let (kept, ending) = lines(of: bytes)
        // Taking `\r` out of `\r\n` leaves UTF-8 as valid (or not) as it was.
        return String(validating: kept ?? bytes, as: UTF8.self).map { ($0, ending) }
    }

    /// The style of `bytes`, and for CRLF the bytes without the `\r` of each `\r\n`.
    private static func lines(of bytes: [UInt8]) -> (kept: [UInt8]?, ending: LineEnding) {
        let (crlf, lone) = bytes.withUnsafeBufferPointer { buffer in
            var crlf = 0
            var lone = 0
            var previous: UInt8 = 0
            for byte in buffer {
                if byte == 0x0A {
                    if previous == 0x0D { crlf += 1 } else { lone += 1 }
                }
                previous = byte
            }
            return (crlf, lone)
        }
        guard crlf > 0, lone == 0 else { return (nil, .lf) }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count - crlf)
        for index in bytes.indices {
            if bytes[index] == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { continue }
            kept.append(bytes[index])
        }
        return (kept, .crlf)
    }

    /// `text` as it goes to disk: unchanged for LF, every `\n` as `\r\n` for CRLF.
    public func encode(_ text: String) -> String {
        guard self == .crlf else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + text.utf8.count / 16)
        for byte in text.utf8 {
            if byte == 0x0A { bytes.append(0x0D) }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
