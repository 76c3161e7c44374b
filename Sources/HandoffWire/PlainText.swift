import FoundationEssentials
import Glibc

/// The few text conversions Baton's modules share, written on the standard library alone:
/// the program links FoundationEssentials, not Foundation, whose formatting and string
/// extensions bring ICU and its 34 MB of data.
package enum PlainText {
    /// Bytes as lowercase hexadecimal, two digits each.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `value` rounded to one decimal, as "2.5" or "-0.3" ("%.1f").
    package static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = (abs(value) * 10).rounded()
        let sign = value < 0 && tenths != 0 ? "-" : ""
        let whole = (tenths / 10).rounded(.down)
        return "\(sign)\(Int(whole)).\(Int(tenths - whole * 10))"
    }

    /// `value` as few digits as say it: "5" for 5.0, "0.25" for 0.25 ("%g" for the values a
    /// user gives as seconds).
    package static func shortest(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}

extension PlainText {
    /// Why a file operation failed, as the system says it ("No such file or directory"), from
    /// the error FoundationEssentials throws; the error itself when it carries no errno.
    package static func reason(_ error: any Error) -> String {
        if let posix = (error as? CocoaError)?.underlying as? POSIXError ?? error as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        return "\(error)"
    }

    /// `name` in `folder` ("a/b" + "c" is "a/b/c"; an absolute `name` stays as it is).
    package static func path(_ folder: String, _ name: String) -> String {
        if name.hasPrefix("/") || folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The folder `path` is in: "/a" for "/a/b", "/" for "/a", "" for a bare name.
    package static func folder(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last part of `path`: "b" for "/a/b" and "/a/b/".
    package static func lastComponent(of path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.last.map(String.init) ?? (path.hasPrefix("/") ? "/" : "")
    }

    /// `date` as `strftime` writes it with `format` ("%Y-%m-%d %H:%M"), in this machine's time
    /// zone (TZ, or /etc/localtime) or, with `utc`, in UTC.
    package static func time(_ date: Date, format: String, utc: Bool = false) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        if utc { gmtime_r(&seconds, &parts) } else { localtime_r(&seconds, &parts) }
        var buffer = [CChar](repeating: 0, count: 128)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `date` falls on today's date in this machine's time zone.
    package static func isToday(_ date: Date, now: Date = Date()) -> Bool {
        time(date, format: "%Y-%m-%d") == time(now, format: "%Y-%m-%d")
    }

    /// `text` with spaces after it up to `width` characters ("%-*s").
    package static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// The user's home folder from the password database, for when HOME is not set.
    package static var homeFolder: String {
        if let entry = getpwuid(getuid()), let folder = entry.pointee.pw_dir { return String(cString: folder) }
        return "/"
    }
}

extension StringProtocol {
    /// The text without the white space (and, with `newlines`, the line breaks) at its ends.
    package func trimmed(newlines: Bool = true) -> String {
        trimmed { newlines ? $0.isWhitespace : ($0.isWhitespace && !$0.isNewline) }
    }

    /// The text without the characters at its ends for which `isTrimmed` holds.
    package func trimmed(while isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(self[first...last])
    }
}
