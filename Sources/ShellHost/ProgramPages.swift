#if canImport(Glibc)
import Glibc
#endif

/// The pages of files the process has mapped read-only, given back.
///
/// A keeper runs a great deal of code to start and to serve a terminal (argument parsing, the
/// network, the stream, libvterm) and, waiting with nobody attached, very little. The pages of
/// that code, and of the constant data it read, stay mapped and counted in its resident memory
/// long after: 14 MB of the program's 17 MB of code were resident in an idle keeper. Pages of a
/// file mapped read-only and never written are the page cache's, shared with every process that
/// maps the same file; `madvise` (`MADV_DONTNEED`) drops them from this process only, and what
/// runs next maps its own pages again on first use. A mapping that holds a page of its own
/// (the relocated data a loader made read-only afterwards) is left alone: dropping that page
/// would lose what was written to it.
public enum ProgramPages {
    /// One mapping: its place, its permissions, the file it maps, the kilobytes of it resident,
    /// and of those the ones that are its own (written, not the file's).
    struct Mapping: Equatable {
        let start: UInt
        let end: UInt
        let permissions: String
        let path: String
        var residentKilobytes = 0
        var anonymousKilobytes = 0

        /// Read-only (code or constants), private, from a file, with no page of its own.
        var isGivenBack: Bool {
            (permissions == "r-xp" || permissions == "r--p") && path.hasPrefix("/") && anonymousKilobytes == 0
        }
    }

    /// Gives back the pages of every mapping `Mapping.isGivenBack` names; returns the bytes of
    /// those mappings.
    @discardableResult
    public static func giveBack() -> Int {
        var bytes = 0
        for mapping in mappings() where mapping.isGivenBack {
            let length = Int(mapping.end - mapping.start)
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start),
                madvise(address, length, MADV_DONTNEED) == 0
            else { continue }
            bytes += length
        }
        return bytes
    }

    /// Gives back the free pages malloc keeps in its arenas (`malloc_trim`): a 16 MB editor's
    /// saves and a live session's first message free megabytes on other threads, which glibc
    /// keeps for those threads' next allocations (9 MB of a waiting editor's 33 MB of its own
    /// memory). Returns whether any was given back.
    @discardableResult
    public static func trimHeap() -> Bool {
        #if canImport(Glibc)
        // malloc_trim is in <malloc.h>, which the Glibc module leaves out.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(nil, "malloc_trim") else { return false }  // nil: RTLD_DEFAULT
        return unsafeBitCast(symbol, to: MallocTrim.self)(0) == 1
        #else
        return false
        #endif
    }

    /// The process's mappings, read from /proc/self/smaps.
    ///
    /// Of its 25 or so lines per mapping, only the header and two fields are read; the others
    /// are told apart by their first bytes, never made into strings: splitting every line as a
    /// `String` cost a keeper 65 million instructions a call, on the loop that serves its
    /// terminals (callgrind, `bench/hot_functions.py`), where this takes a fifth of the time.
    static func mappings() -> [Mapping] {
        guard let file = fopen("/proc/self/smaps", "r") else { return [] }
        defer { fclose(file) }
        var mappings: [Mapping] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            // A header starts with its address, in lowercase hexadecimal; a field with its name,
            // capitalised ("Rss:", "Anonymous:", "VmFlags:").
            if isHexDigit(UInt8(bitPattern: line[0])) {
                if let mapping = mapping(String(cString: line)) { mappings.append(mapping) }
            } else if mappings.isEmpty {
                continue
            } else if let value = field("Anonymous:", of: line) {
                mappings[mappings.count - 1].anonymousKilobytes = value ?? 1
            } else if let value = field("Rss:", of: line) {
                mappings[mappings.count - 1].residentKilobytes = value ?? 0
            }
        }
        return mappings
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// When `line` is the field `name` ("Rss:"), its number of kilobytes (nil inside when it does
    /// not read as one); nil for any other line.
    private static func field(_ name: StaticString, of line: UnsafePointer<CChar>) -> Int?? {
        let matches = name.withUTF8Buffer { name in
            name.baseAddress.map { strncmp(line, UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), name.count) == 0 } ?? false
        }
        guard matches else { return nil }
        return .some(kilobytes(String(cString: line)))
    }

    /// The mapping a header line of /proc/self/smaps (or a line of /proc/self/maps) describes:
    /// "START-END PERMS OFFSET DEV INODE [PATH]"; nil for any other line.
    static func mapping(_ line: String) -> Mapping? {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5, fields[1].count == 4 else { return nil }
        let bounds = fields[0].split(separator: "-")
        guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), start < end
        else { return nil }
        let path = fields.count == 6 ? String(fields[5].drop { $0 == " " }.prefix { $0 != "\n" }) : ""
        return Mapping(start: start, end: end, permissions: String(fields[1]), path: path)
    }

    /// The number of a line "Anonymous:      12 kB".
    static func kilobytes(_ line: String) -> Int? {
        line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
    }
}
