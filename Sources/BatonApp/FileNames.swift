import Handoff
import HandoffWire

/// Rules for the file names the editor saves to.
///
/// A peer's `fileName` is a display name only: here it is reduced to its base name, and a
/// name that is not a plain file name gives none, so nothing a peer sends can choose a
/// directory to write into.
public enum FileNames {
    /// The longest file name in UTF-8 bytes (Linux `NAME_MAX`).
    public static let maximumBytes = 255

    /// The last component of a local path (`"docs/notes.txt"` → `"notes.txt"`), nil when it has none.
    public static func lastComponent(of path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        return parts.last.map(String.init)
    }

    /// The base name of a name that came from a peer: everything up to the last `/` or `\`
    /// removed; nil for an empty result, `.`, `..`, a name with control, bidi or invisible
    /// characters, or one too long. `"../../etc/passwd"` → `"passwd"`.
    public static func safeBaseName(of name: String) -> String? {
        let parts = name.split(omittingEmptySubsequences: true) { $0 == "/" || $0 == "\\" }
        guard let last = parts.last.map(String.init) else { return nil }
        return validate(last) == nil ? last : nil
    }

    /// Whether saving to `name` without asking is fine: a safe base name that is not hidden
    /// (a peer should not quietly create `.profile`).
    public static func isQuietlySavable(_ name: String) -> Bool {
        safeBaseName(of: name) == name && !name.hasPrefix(".")
    }

    /// Why `path`, typed at the "Save as: " prompt, cannot be saved to, or nil when it can: a
    /// file name, or a path to one, relative (`docs/notes.txt`, `../notes.txt`) or absolute
    /// (`/tmp/notes.txt`). Its last part must be a valid file name (`validate`), so a path
    /// ending in `/`, `.` or `..` names a folder, not a file. Whether its folders exist is for the
    /// save to find out.
    public static func validatePath(_ path: String) -> FileNameProblem? {
        if path.allSatisfy(\.isWhitespace) { return .empty }
        if path.hasSuffix("/") { return .folder(path) }
        if PeerText.visible(path) != path { return .containsControlCharacter }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        for part in parts {
            let bytes = part.utf8.count
            if bytes > maximumBytes { return .tooLong(bytes: bytes, limit: maximumBytes) }
        }
        guard let last = parts.last else { return .folder(path) }
        if last == "." || last == ".." { return .folder(path) }
        return validate(last)
    }

    /// `path` when it may travel as a continued text's `filePath` (docs/PROTOCOL.md §11), or be
    /// taken from one: relative, each component a name `validate` accepts and not `.` or `..`,
    /// no empty component, no `\`; nil otherwise. `./notes.txt` travels as `notes.txt`.
    public static func shareablePath(_ path: String) -> String? {
        guard !path.hasPrefix("/"), !path.contains("\\"), path.utf8.count <= 4096 else { return nil }
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count > 1, parts.first == "." { parts.removeFirst() }
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && validate($0) == nil }) else {
            return nil
        }
        return parts.joined(separator: "/")
    }

    /// Why `name` cannot be a file name in the current directory, or nil when it can.
    public static func validate(_ name: String) -> FileNameProblem? {
        if name.allSatisfy(\.isWhitespace) { return .empty }
        if name.contains("/") { return .containsSlash(name) }
        if name == "." || name == ".." { return .reserved(name) }
        if PeerText.visible(name) != name {
            return .containsControlCharacter
        }
        let bytes = name.utf8.count
        if bytes > maximumBytes { return .tooLong(bytes: bytes, limit: maximumBytes) }
        return nil
    }
}
