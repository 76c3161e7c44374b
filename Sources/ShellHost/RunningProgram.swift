#if canImport(Glibc)
import Glibc
#endif

/// What a shell session's activity says runs: the command in front on its terminal and its
/// folder. Read from /proc for the terminal's foreground process group; no output, no
/// environment.
struct RunningProgram: Equatable, Sendable {
    var command: String
    var folder: String

    /// The foreground program of the terminal whose master end is `master`, or nil when it
    /// cannot be read.
    static func inFront(of master: Int32) -> RunningProgram? {
        let group = tcgetpgrp(master)
        guard group > 0, let arguments = read("/proc/\(group)/cmdline") else { return nil }
        let words = arguments.split(separator: 0, omittingEmptySubsequences: false).dropLast()
            .map { String(decoding: $0, as: UTF8.self) }
        guard !words.isEmpty else { return nil }
        var folder = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/\(group)/cwd", &folder, folder.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: folder.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return RunningProgram(arguments: words, folder: path)
    }

    /// What runs, said the one way: the program's name without its folder, and up to three of
    /// its arguments.
    init(arguments: [String], folder: String) {
        let first = arguments.first ?? ""
        let name = first.split(separator: "/").last.map(String.init) ?? first
        self.command = String(([name] + arguments.dropFirst().prefix(3)).map(Self.word).joined(separator: " ").prefix(120))
        self.folder = folder
    }

    /// `argument` as a reader would type it: quoted when it has a blank or a quote.
    static func word(_ argument: String) -> String {
        let plain = !argument.isEmpty && !argument.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" || $0.isNewline })
        if plain { return argument }
        return "'" + argument.replacingOccurrences("'", "'\\''") + "'"
    }

    /// `folder` with the home folder as ~.
    static func shortFolder(_ folder: String) -> String {
        guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty, home != "/" else { return folder }
        if folder == home { return "~" }
        if folder.hasPrefix(home + "/") { return "~" + folder.dropFirst(home.count) }
        return folder
    }

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer.prefix(count)) : nil
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
